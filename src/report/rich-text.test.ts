import { describe, expect, it } from "vitest";
import { planReport } from "../../test/fixtures/reports/plan.js";
import { renderReport } from "./render.js";
import { shortened } from "./rich-text.js";
import { reportSchema } from "./schema.js";
import type { Report, ReportItem } from "./types.js";

const written: ReportItem = {
  kind: "story",
  title: "Rollout",
  action: "update",
  tinypmId: "21",
  targetId: "WID-21",
  changes: [{ field: "description", toSide: "target", from: "a", to: "b" }],
  conflicts: [],
  descriptions: [
    {
      toSide: "target",
      diff: [
        { op: "same", text: "Freeze the service.\n\n" },
        { op: "removed", text: "Deploy" },
        { op: "added", text: "Deploy <b>twice</b>" },
        { op: "same", text: " on Monday." },
      ],
      rich: { outcome: "kept", kept: 7, rewritten: 1, removed: 0, lost: [] },
    },
  ],
  comments: 0,
  timeEntries: 0,
};

const parked: ReportItem = {
  ...written,
  title: "Steps",
  action: "conflict",
  descriptions: [
    {
      toSide: "target",
      diff: [
        { op: "same", text: "| Deploy | " },
        { op: "removed", text: "CI" },
        { op: "added", text: "CI/CD" },
      ],
      rich: {
        outcome: "parked",
        kept: 7,
        rewritten: 1,
        removed: 0,
        lost: [{ excerpt: "| Step | Who |", what: ["table (3×2)", "mention @Bob"] }],
      },
    },
  ],
};

function report(): Report {
  return { ...planReport(), target: "jira", items: [written, parked] };
}

describe("descriptions in reports: word diff and the rich-content line", () => {
  it("text: a word diff with line breaks kept, and whether rich content is kept", () => {
    const text = renderReport(report(), "text");
    expect(text).toContain("description → Jira, word diff:");
    expect(text).toContain("  Freeze the service.\n");
    expect(text).toContain("[-Deploy-]{+Deploy <b>twice</b>+} on Monday.");
    expect(text).toContain(
      "Jira rich content kept (7 blocks kept as written, 1 rewritten, 0 removed)",
    );
    expect(text).toContain(
      'Jira rich content would be lost ("| Step | Who |": table (3×2), mention @Bob): parked as a conflict, nothing written (richText: merge)',
    );
  });

  it("Markdown: struck-out and inserted words in a quote", () => {
    const md = renderReport(report(), "markdown");
    expect(md).toContain(
      "  > Freeze the service.\n  >\n  > <del>Deploy</del><ins>Deploy \\<b\\>twice\\</b\\></ins> on Monday.",
    );
    expect(md).toContain("Jira rich content kept");
    expect(md).toContain("parked as a conflict");
  });

  it("HTML: <del>/<ins> runs, escaped, and the rich line", () => {
    const html = renderReport(report(), "html");
    expect(html).toContain(
      "<del>Deploy</del><ins>Deploy &lt;b&gt;twice&lt;/b&gt;</ins> on Monday.",
    );
    expect(html).toContain("Jira rich content kept (7 blocks kept as written");
    expect(html).toContain("would be lost");
  });

  it("JSON: the diff and the rich outcome, valid against the schema", () => {
    const json = JSON.parse(renderReport(report(), "json")) as Report;
    expect(reportSchema.safeParse(json).success).toBe(true);
    expect(json.items[1]?.descriptions?.[0]?.rich).toMatchObject({
      outcome: "parked",
      lost: [{ what: ["table (3×2)", "mention @Bob"] }],
    });
    expect(json.items[0]?.descriptions?.[0]?.diff).toHaveLength(4);
  });
});

describe("shortened: the word diff as people read it", () => {
  it("cuts a long added run (a created description) and says how much was left out", () => {
    const body = "word ".repeat(200); // 1,000 characters
    const [part] = shortened([{ op: "added", text: body }]);
    expect(part?.op).toBe("added");
    expect(part?.text.startsWith(body.slice(0, 400))).toBe(true);
    expect(part?.text.endsWith("… (600 more characters)")).toBe(true);
    const short = shortened([{ op: "removed", text: "old words" }]);
    expect(short).toEqual([{ op: "removed", text: "old words" }]);
  });

  it("shows Windows line ends as plain line breaks", () => {
    expect(shortened([{ op: "added", text: "one\r\ntwo\rthree" }])).toEqual([
      { op: "added", text: "one\ntwo\nthree" },
    ]);
  });
});
