import { defineTrackerContract } from "../tracker-contract.js";
import { startTinypm } from "./setup.js";

for (const apiVersion of ["2.6", "2.5"] as const) {
  defineTrackerContract(`tinypm ${apiVersion}`, async () => {
    const f = await startTinypm({ apiVersion, generate: "empty" });
    const statuses = await f.tracker.listTaskStatuses();
    return {
      tracker: f.tracker,
      draft: (n: number) => ({
        kind: "story" as const,
        title: `Story ${n}`,
        status: "PENDING",
        assignees: [],
        labels: apiVersion === "2.6" ? ["a", `n${n}`] : [],
      }),
      taskDraft: (n: number, parentId: string) => ({
        kind: "task" as const,
        parentId,
        title: `Task ${n}`,
        status: statuses[0]?.name ?? "PENDING",
        assignees: [],
        labels: [],
      }),
      missingId: "999999",
      pageSize: 5,
      injectFault: (kind: "rate-limit" | "malformed") => {
        if (kind === "rate-limit") {
          f.proxy.override({
            status: 429,
            headers: { "retry-after": "2" },
            body: "<error><status>429</status><message>slow down</message></error>",
            times: 10,
          });
        } else {
          f.proxy.override({ body: "<userStory><id>1</id><name>broken</userStory>", times: 10 });
        }
      },
      clearFaults: () => {
        f.proxy.clear();
      },
      close: () => f.close(),
    };
  });
}
