import { createMemoryTracker } from "../../src/adapters/memory/index.js";
import { defineTrackerContract } from "./tracker-contract.js";

defineTrackerContract("memory", () => {
  const tracker = createMemoryTracker({ pageSize: 5 });
  return Promise.resolve({
    tracker,
    draft: (n: number) => ({
      kind: "story" as const,
      title: `Story ${n}`,
      status: "PENDING",
      assignees: [],
      labels: ["a", `n${n}`],
    }),
    taskDraft: (n: number, parentId: string) => ({
      kind: "task" as const,
      parentId,
      title: `Task ${n}`,
      status: "TO DO",
      assignees: [],
      labels: [],
    }),
    missingId: "999999",
    pageSize: 5,
    injectFault: (kind: "rate-limit" | "malformed") => {
      tracker.injectFault(kind);
    },
    clearFaults: () => undefined,
    close: () => tracker.close(),
  });
});
