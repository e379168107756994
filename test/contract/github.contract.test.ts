import { startGithubHarness } from "./github-setup.js";
import { defineTrackerContract } from "./tracker-contract.js";

defineTrackerContract("github", async () => {
  const h = await startGithubHarness();
  return {
    tracker: h.tracker,
    draft: (n: number) => ({
      kind: "story" as const,
      title: `Story ${n}`,
      status: "open",
      assignees: [],
      labels: ["a", `n${n}`],
    }),
    taskDraft: (n: number, parentId: string) => ({
      kind: "task" as const,
      parentId,
      title: `Task ${n}`,
      status: "open",
      assignees: [],
      labels: [],
    }),
    missingId: "999999",
    pageSize: 100,
    injectFault: (kind: "rate-limit" | "malformed") => {
      if (kind === "rate-limit") h.sandbox.setFaults("429=2");
      else h.garbleNext("shape");
    },
    clearFaults: () => {
      h.sandbox.setFaults("");
    },
    close: () => h.close(),
  };
});
