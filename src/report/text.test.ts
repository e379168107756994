import { describe, expect, it } from "vitest";
import { emptySyncReport } from "../../test/fixtures/reports/empty-sync.js";
import { hostileReport } from "../../test/fixtures/reports/hostile.js";
import { normaliseReport } from "../../test/fixtures/reports/normalise.js";
import { planReport } from "../../test/fixtures/reports/plan.js";
import { renderText } from "./text.js";

describe("renderText", () => {
  it("groups a plan by story, with field diffs, conflicts, failures, users, API cost and totals", () => {
    expect(normaliseReport(renderText(planReport()))).toMatchInlineSnapshot(`
      "Sync plan · job widgets · tinyPM and GitHub · dry run: nothing was written
      run <run-id> · <time> → <time> (4 s)

      ~ update   story "Checkout flow"  tinyPM story #13 ⇄ GitHub #34 · 1 comment
            links: tinyPM story #13 http://tinypm.example/tinypm/userStory/show/13 · GitHub #34 https://github.com/acme/shop/issues/34
            title → GitHub: "Checkout" → "Checkout flow"
            labels → GitHub: "shop" → "shop", "ui"
            estimate → tinyPM: 3 → 5
            assignees → tinyPM: — → "bob"
          ! conflict task "Pay with card"  tinyPM task #130 ⇄ GitHub #77
                status conflict: base "open" · tinyPM "closed" · GitHub "in-progress" → parked (conflicts resolve)
      + create   story "Login page"  tinyPM story #12 → GitHub · 2 comments, 1 time entry
            would write: status "open" · labels "auth", "ui" · assignees "alice" · milestone "Sprint 4" · estimate 3
            links: tinyPM story #12 http://tinypm.example/tinypm/userStory/show/12
          + create   task "Write tests"  tinyPM task #120 → GitHub
                would write: status "open" · parent "Login page"
      + create   story "Dark mode"  GitHub #41 → tinyPM
      ✗ failed   story "Export to CSV"  tinyPM story #14 → GitHub
            error [payload_invalid]: GitHub refused the issue: title is too long (256)
      ~ update   story "Search"  tinyPM story #15 ⇄ GitHub #35 · 2 time entries
            description → GitHub: "Find items." → "Find items by name or tag, fast, even in archived projects…
            kept on GitHub: status
            priority conflict: base 2 · tinyPM 1 · GitHub 3 → tinyPM wins
            description → GitHub, word diff:
              Find items{+ by name or tag, fast, even in archived projects+}.
            GitHub rich content kept (0 blocks kept as written, 1 rewritten, 0 removed)
      = adopt    story "Onboarding"  tinyPM story #16 ⇄ GitHub #36 · found by its marker
      - delete   story "Legacy importer"  tinyPM story #17 ⇄ GitHub #37 · deleted on tinyPM; close on the other side
      · skip     task "Orphan task"  GitHub #90 · parent-missing

      Users with no GitHub counterpart: carol, dave@example.com
      Note: Waited 2.5 s for rate limits (1 pause).
      API calls: tinyPM 14 reads, 0 writes · GitHub 9 reads, 0 writes, 1 retry, 1 rate-limit wait, 6 not modified
      Writes this would make: GitHub 9 writes · tinyPM 3 writes
      Totals: 3 create · 2 update · 1 adopt · 1 delete · 1 conflict · 1 failed · 1 skip · 2 unchanged (not listed; --verbose lists them)
      "
    `);
  });

  it("lists unchanged items when verbose", () => {
    const text = renderText(planReport(), { verbose: true });
    expect(text).toContain('· skip     task "Pay by invoice"');
    expect(text).toContain(
      "Totals: 3 create · 2 update · 1 adopt · 1 delete · 1 conflict · 1 failed · 1 skip · 2 unchanged\n",
    );
  });

  it("summarises a sync with nothing to do", () => {
    expect(normaliseReport(renderText(emptySyncReport()))).toMatchInlineSnapshot(`
      "Sync · job widgets · tinyPM and Jira
      run <run-id> · <time> → <time> (1 s)

      Nothing to do.

      API calls: tinyPM 3 reads, 0 writes · Jira 2 reads, 0 writes
      Totals: 2 unchanged (not listed; --verbose lists them)
      "
    `);
  });

  it("counts foreign items once and names them only when verbose", () => {
    const base = emptySyncReport();
    const report = {
      ...base,
      items: [
        ...base.items,
        {
          kind: "story" as const,
          title: "Another job's issue",
          action: "skip" as const,
          targetId: "77",
          reason: "foreign",
          changes: [],
          conflicts: [],
          comments: 0,
          timeEntries: 0,
        },
        {
          kind: "story" as const,
          title: "Another tinyPM's issue",
          action: "skip" as const,
          targetId: "78",
          reason: "foreign",
          changes: [],
          conflicts: [],
          comments: 0,
          timeEntries: 0,
        },
      ],
    };
    const quiet = renderText(report);
    expect(quiet).not.toContain("Another job's issue");
    const unchanged = base.items.filter((i) => i.action === "skip").length;
    // Counted once: as foreign, not a second time as unchanged (issue #32: 240 foreign + 240
    // unchanged for 240 items).
    expect(quiet).toContain(
      `Totals: ${unchanged} unchanged (not listed; --verbose lists them) · 2 foreign (made on Jira by another job or tinyPM, left alone; --verbose names them)\n`,
    );
    const verbose = renderText(report, { verbose: true });
    expect(verbose).toContain('· skip     story "Another job\'s issue"  Jira #77 · foreign');
    expect(verbose).toContain("2 foreign");
  });

  it("colours actions only when asked", () => {
    expect(renderText(planReport())).not.toContain("\u001b[");
    const coloured = renderText(planReport(), { color: true });
    expect(coloured).toContain("\u001b[32m+ create");
    expect(coloured).toContain("\u001b[35m! conflict");
  });

  it("names the target as the caller asks", () => {
    expect(renderText(planReport(), { targetName: "GitHub Enterprise" })).toContain(
      "title → GitHub Enterprise:",
    );
  });

  it("shows terminal escape sequences in titles as text", () => {
    const text = renderText(hostileReport(), { color: false });
    expect(text).not.toContain("\u001b");
    expect(text).not.toContain("\u0007");
    expect(text).toContain('"Bell\\u0007 and \\u001b[31mred\\u001b[0m"');
  });

  it("names a story with nothing to do above its tasks that have something", () => {
    const report = emptySyncReport();
    const [story, task] = report.items;
    const items = [story!, { ...task!, action: "create" as const, reason: undefined }];
    expect(renderText({ ...report, items })).toContain(
      '  story "Checkout flow" (no changes)\n    + create   task "Pay with card"',
    );
  });
});
