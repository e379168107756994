import { describe, expect, it } from "vitest";
import { finishedRunOf, type RunApi } from "./api-routes.js";
import { counts, renderDashboard, withBackLink } from "./dashboard.js";
import type { Service } from "./service.js";

const run: RunApi = {
  id: "20261128T120000Z-abc",
  job: "gh",
  mode: "sync",
  outcome: "failed",
  startedAt: "2026-11-28T12:00:00.000Z",
  finishedAt: "2026-11-28T12:00:01.000Z",
  counts: {},
  pid: 1,
  host: "h",
  workerId: "w",
  triggers: ["webhook"],
  items: ["7"],
  report: null,
};

const page = (runs: readonly RunApi[], runErrors?: ReadonlyMap<string, string>): string =>
  renderDashboard(
    { jobs: [], runs, conflicts: [], workers: [], runErrors },
    { csrf: "c", session: false },
  );

describe("dashboard words (issue 32)", () => {
  it("counts one conflict as `1 conflict`", () => {
    expect(counts({ created: 2, conflicts: 1 })).toBe("2 created, 1 conflict");
    expect(counts({ conflicts: 2 })).toBe("2 conflicts");
  });

  it("names a webhook run's items as issues, not as a count, and shows a failed run's error", () => {
    const html = page([run], new Map([[run.id, "[auth_failed] GitHub refused the token."]]));
    expect(html).toContain("webhook · only item #7");
    expect(html).not.toContain("items 7");
    expect(html).toMatch(
      /webhook · only item #7<br><span class="failed" data-run-error>\[auth_failed\] GitHub refused the token\.<\/span>/,
    );
    expect(page([{ ...run, items: ["WID-3", "WID-4"] }])).toContain("only items WID-3, WID-4");
  });

  it("puts a way back to the dashboard first in a run's report", () => {
    expect(withBackLink('<html><body class="r">\n<h1>Run</h1>', "gh <x>")).toBe(
      '<html><body class="r">\n<nav data-back><a href="/">← Dashboard</a> · <a href="/#runs">Runs</a> · <a href="/#jobs">Job gh &lt;x&gt;</a></nav>\n<h1>Run</h1>',
    );
  });
});

describe("finishedRunOf", () => {
  it("finds a failed run, whose id the service never learnt, by the time it covers", () => {
    const failed = {
      job: "gh",
      runId: undefined,
      outcome: "failed",
      triggers: ["manual"],
      items: undefined,
      startedAt: "2026-11-28T11:59:59.900Z",
      finishedAt: "2026-11-28T12:00:01.100Z",
      report: undefined,
      error: "[x] it broke",
    } as const;
    const service = {
      findRun: () => undefined,
      finished: (job?: string) => (job === "gh" ? [failed] : []),
    } as unknown as Service;
    expect(finishedRunOf(service, run)?.error).toBe("[x] it broke");
    expect(finishedRunOf(service, { ...run, job: "other" })).toBeUndefined();
    expect(finishedRunOf(service, { ...run, startedAt: "2026-11-28T12:00:02.000Z" })).toBe(
      undefined,
    );
  });
});
