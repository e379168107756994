import { describe, expect, it } from "vitest";
import { emptySyncReport } from "../../test/fixtures/reports/empty-sync.js";
import { hostileReport } from "../../test/fixtures/reports/hostile.js";
import { normaliseReport } from "../../test/fixtures/reports/normalise.js";
import { planReport } from "../../test/fixtures/reports/plan.js";
import type { Report, ReportItem } from "./types.js";
import { renderMarkdown } from "./markdown.js";

const ZWSP = "\u200B";

describe("renderMarkdown", () => {
  it("renders a plan: summary table, a section per action, diffs as tables, users, API cost", () => {
    expect(normaliseReport(renderMarkdown(planReport()))).toMatchInlineSnapshot(`
      "## Sync plan: widgets (tinyPM and GitHub)

      **Dry run**: nothing was written. Run <run-id>, <time> → <time> (4 s).

      | Created | Updated | Unchanged | Conflicts | Failed | Deleted |
      | ---: | ---: | ---: | ---: | ---: | ---: |
      | 3 | 3 | 3 | 1 | 1 | 1 |

      ### Create (3)

      - Story **Login page** — tinyPM story #<ZWSP>12 → GitHub · 2 comments, 1 time entry
        - Would write: status "open" · labels "auth", "ui" · assignees "alice" · milestone "Sprint 4" · estimate 3
        - Links: [tinyPM story #<ZWSP>12](http://tinypm.example/tinypm/userStory/show/12)
      - Task **Write tests** (story Login page) — tinyPM task #<ZWSP>120 → GitHub
        - Would write: status "open" · parent "Login page"
      - Story **Dark mode** — GitHub #<ZWSP>41 → tinyPM

      ### Update (2)

      - Story **Checkout flow** — tinyPM story #<ZWSP>13 ⇄ GitHub #<ZWSP>34 · 1 comment
        - Links: [tinyPM story #<ZWSP>13](http://tinypm.example/tinypm/userStory/show/13) · [GitHub #<ZWSP>34](https://github.com/acme/shop/issues/34)

        | Field | Old | New | Written to |
        | --- | --- | --- | --- |
        | title | "Checkout" | "Checkout flow" | GitHub |
        | labels | "shop" | "shop", "ui" | GitHub |
        | estimate | 3 | 5 | tinyPM |
        | assignees | — | "bob" | tinyPM |

      - Story **Search** — tinyPM story #<ZWSP>15 ⇄ GitHub #<ZWSP>35 · 2 time entries
        - Kept on GitHub: status

        | Field | Old | New | Written to |
        | --- | --- | --- | --- |
        | description | "Find items." | "Find items by name or tag, fast, even in archived projects… | GitHub |

        | Conflict | Base | tinyPM | GitHub | Resolution |
        | --- | --- | --- | --- | --- |
        | priority | 2 | 1 | 3 | tinyPM wins |

        Description → GitHub, word diff:

        > Find items<ins> by name or tag, fast, even in archived projects</ins>.

        GitHub rich content kept (0 blocks kept as written, 1 rewritten, 0 removed)

      ### Adopt (1)

      - Story **Onboarding** — tinyPM story #<ZWSP>16 ⇄ GitHub #<ZWSP>36 · found by its marker

      ### Delete (1)

      - Story **Legacy importer** — tinyPM story #<ZWSP>17 ⇄ GitHub #<ZWSP>37 · deleted on tinyPM; close on the other side

      ### Conflict (1)

      - Task **Pay with card** (story Checkout flow) — tinyPM task #<ZWSP>130 ⇄ GitHub #<ZWSP>77

        | Conflict | Base | tinyPM | GitHub | Resolution |
        | --- | --- | --- | --- | --- |
        | status | "open" | "closed" | "in-progress" | parked (conflicts resolve) |

      ### Failed (1)

      - Story **Export to CSV** — tinyPM story #<ZWSP>14 → GitHub
        - Error payload\\_invalid: GitHub refused the issue: title is too long (256)

      ### Skip (1)

      - Task **Orphan task** — GitHub #<ZWSP>90 · parent-missing

      _2 unchanged items not listed._

      ### Users

      Not mapped to GitHub (2): carol, dave@example.com

      <details>
      <summary>2 matched users</summary>

      | tinyPM | GitHub | How |
      | --- | --- | --- |
      | alice | alice-gh | users file |
      | bob | bob | same login |

      </details>

      ### API cost

      | System | Reads | Writes | Retries | Rate-limit waits | Not modified | Writes it would make |
      | --- | ---: | ---: | ---: | ---: | ---: | ---: |
      | tinyPM | 14 | 0 | 0 | 0 | 0 | 3 |
      | GitHub | 9 | 0 | 1 | 1 | 6 | 9 |

      ### Notes

      - Waited 2.5 s for rate limits (1 pause).
      "
    `);
  });

  it("renders a sync with nothing to do", () => {
    expect(normaliseReport(renderMarkdown(emptySyncReport()))).toMatchInlineSnapshot(`
      "## Sync: widgets (tinyPM and Jira)

      Run <run-id>, <time> → <time> (1 s).

      | Created | Updated | Unchanged | Conflicts | Failed | Deleted |
      | ---: | ---: | ---: | ---: | ---: | ---: |
      | 0 | 0 | 2 | 0 | 0 | 0 |

      _2 unchanged items not listed._

      ### API cost

      | System | Reads | Writes | Retries | Rate-limit waits | Not modified |
      | --- | ---: | ---: | ---: | ---: | ---: |
      | tinyPM | 3 | 0 | 0 | 0 | 0 |
      | Jira | 2 | 0 | 0 | 0 | 0 |
      "
    `);
  });

  it("escapes pipes, backticks and HTML in titles and values, and notifies no one", () => {
    const md = renderMarkdown(hostileReport());
    expect(md).toContain(
      `Story **\\<script\\>alert("x")\\</script\\> \\| \\\`rm -rf\\\` @${ZWSP}octocat #${ZWSP}12**`,
    );
    expect(md).toContain(`| "a \\| b @${ZWSP}team/admins" |`);
    expect(md).toContain(`@${ZWSP}everyone, \\<i\\>mallory\\</i\\>`);
    expect(md).not.toMatch(/(?<!\\)<\/?(script|img|i|b)\b/);
    expect(md).not.toMatch(/(^|[^\\])@(?!\u200B)\w/m);
  });

  it("folds long sections in details/summary blocks", () => {
    const base = planReport();
    const many: ReportItem[] = Array.from({ length: 12 }, (_, i) => ({
      kind: "story",
      title: `Story ${i}`,
      action: "create",
      direction: "to-target",
      tinypmId: String(100 + i),
      changes: [],
      conflicts: [],
      comments: 0,
      timeEntries: 0,
    }));
    const report: Report = { ...base, items: many };
    const md = renderMarkdown(report);
    expect(md).toContain(
      "### Create (12)\n\n<details>\n<summary>12 items</summary>\n\n- Story **Story 0**",
    );
    expect(md).toContain("- Story **Story 11** — tinyPM story #\u200B111 → GitHub\n\n</details>");
  });

  it("renders a report with more lines than a function call takes arguments", () => {
    const item = planReport().items[0]!;
    const items = Array.from({ length: 40_000 }, (_, i) => ({ ...item, title: `Story ${i}` }));
    const md = renderMarkdown({ ...planReport(), items }, { maxLength: Number.POSITIVE_INFINITY });
    expect(md).toContain("### Update (40000)");
    expect(md).toContain("Story **Story 39999**");
  });

  it("fits GitHub's body limit by listing fewer items per section", () => {
    const item = planReport().items[0]!;
    const items = Array.from({ length: 2000 }, (_, i) => ({ ...item, title: `Story ${i}` }));
    const md = renderMarkdown({ ...planReport(), items });
    expect(md.length).toBeLessThanOrEqual(65_536);
    expect(md).toContain("### Update (2000)");
    expect(md).toMatch(/- …and \d+ more \(the JSON and HTML reports list them all\)/);
    expect(md).toContain("### API cost");
  });

  it("lists everything when it fits in maxLength", () => {
    const md = renderMarkdown(planReport(), { maxLength: Number.POSITIVE_INFINITY });
    expect(md).not.toContain("more (the JSON");
    const item = planReport().items[0]!;
    const eight = Array.from({ length: 8 }, (_, i) => ({ ...item, title: `Story ${i}` }));
    expect(renderMarkdown({ ...planReport(), items: eight }, { maxLength: 500 })).toContain(
      "- Story **Story 4**",
    );
    expect(renderMarkdown({ ...planReport(), items: eight }, { maxLength: 500 })).toContain(
      "- …and 3 more",
    );
  });
  it("keeps a hint's `settings` as code spans, everything else escaped", () => {
    const md = renderMarkdown({
      ...planReport(),
      estimatedDuration: {
        durationMs: 3_600_000,
        boundBy: "GitHub's 80 content writes per minute",
        text: "about 1 h",
        hint: "set `importApi: true` on the GitHub target if the *token* is an admin's",
      },
    });
    expect(md).toContain(
      "> Hint: set `importApi: true` on the GitHub target if the \\*token\\* is an admin's",
    );
    expect(md).not.toContain("\\`");
  });

  it("lists what a create would write and links items (only http(s) links)", () => {
    const report = planReport();
    const md = renderMarkdown({
      ...report,
      items: report.items.map((i) =>
        i.title === "Dark mode" ? { ...i, links: { target: "javascript:alert(1)" } } : i,
      ),
    });
    expect(md).toContain('  - Would write: status "open" · labels "auth", "ui"');
    expect(md).toContain("(https://github.com/acme/shop/issues/34)");
    expect(md).not.toContain("javascript:");
  });
});
