import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AdfNode } from "./adf.js";
import { adfToMarkdown } from "./adf-render.js";

const doc = (...content: AdfNode[]): AdfNode => ({ type: "doc", content });
const p = (...content: AdfNode[]): AdfNode => ({ type: "paragraph", content });
const t = (text: string): AdfNode => ({ type: "text", text });

describe("Jira → tinyPM text keeps the meaning of every node", () => {
  it.each<[string, AdfNode, string]>([
    [
      "a link keeps its text, URL and title",
      doc(
        p({
          type: "text",
          text: "runbook",
          marks: [{ type: "link", attrs: { href: "https://w.example/rb", title: "Runbook v2" } }],
        }),
      ),
      '[runbook](https://w.example/rb "Runbook v2")',
    ],
    [
      "an expand keeps its title and content",
      doc({
        type: "expand",
        attrs: { title: "Rollback" },
        content: [p(t("Revert the tag.")), p(t("Redeploy."))],
      }),
      "▸ Rollback\nRevert the tag.\n\nRedeploy.",
    ],
    [
      "a panel's type becomes a prefix",
      doc({ type: "panel", attrs: { panelType: "warning" }, content: [p(t("Freeze first."))] }),
      "Warning: Freeze first.",
    ],
    [
      // The adapter's Markdown keeps the accountId; the mapping shows tinyPM the name (mention-codec).
      "a mention keeps the person's name and accountId",
      doc(
        p({ type: "mention", attrs: { id: "acc-1", text: "@Alice Meyer" } }, t(" and "), {
          type: "mention",
          attrs: { id: "acc-2", text: "Bob" },
        }),
      ),
      "[@Alice Meyer](mention:acc-1) and @Bob",
    ],
    [
      "status and date become text",
      doc(
        p({ type: "status", attrs: { text: "IN PROGRESS", color: "blue" } }, t(" until "), {
          type: "date",
          attrs: { timestamp: "1767225600000" },
        }),
      ),
      "IN PROGRESS until 2026-01-01",
    ],
    [
      "emoji become their character",
      doc(p({ type: "emoji", attrs: { shortName: ":rocket:", text: "🚀" } })),
      "🚀",
    ],
    [
      "a task list becomes check boxes, nested ones indented",
      doc({
        type: "taskList",
        content: [
          { type: "taskItem", attrs: { state: "DONE" }, content: [t("Announce")] },
          {
            type: "taskList",
            content: [{ type: "taskItem", attrs: { state: "TODO" }, content: [t("Runbook")] }],
          },
        ],
      }),
      "- [x] Announce\n  - [ ] Runbook",
    ],
    [
      "a nested bullet list keeps its depth",
      doc({
        type: "bulletList",
        content: [
          {
            type: "listItem",
            content: [
              p(t("one")),
              {
                type: "orderedList",
                content: [{ type: "listItem", content: [p(t("one.a"))] }],
              },
            ],
          },
        ],
      }),
      "- one\n  1. one.a",
    ],
    [
      "a code block keeps its language and text",
      doc({
        type: "codeBlock",
        attrs: { language: "python" },
        content: [t("@retry\ndef f(): pass")],
      }),
      "```python\n@retry\ndef f(): pass\n```",
    ],
    [
      "a smart link becomes its URL",
      doc(p({ type: "inlineCard", attrs: { url: "https://x.example/OPS-7" } })),
      "https://x.example/OPS-7",
    ],
    [
      "a table becomes aligned text",
      doc({
        type: "table",
        content: [
          {
            type: "tableRow",
            content: [
              { type: "tableHeader", content: [p(t("Step"))] },
              { type: "tableHeader", content: [p(t("Who"))] },
            ],
          },
          {
            type: "tableRow",
            content: [
              { type: "tableCell", content: [p(t("Drain the queue"))] },
              { type: "tableCell", content: [p(t("a|b"))] },
            ],
          },
        ],
      }),
      "| Step            | Who  |\n| --------------- | ---- |\n| Drain the queue | a\\|b |",
    ],
  ])("%s", (_name, input, text) => {
    expect(adfToMarkdown(input)).toBe(text);
  });

  it("renders a real-world description (table, panel, code, expand, tasks) readably", () => {
    const fixture = new URL(
      "../../../test/fixtures/rich-text/jira-description.json",
      import.meta.url,
    );
    const json = JSON.parse(readFileSync(fixture, "utf8")) as AdfNode;
    expect(adfToMarkdown(json)).toBe(
      [
        "## Rollout plan",
        "Owner: [@Alice Meyer](mention:5b10ac8d82e05b22cc7d4ef5), due 2026-01-01, now IN PROGRESS 🚀",
        "Warning: Freeze the payments service first.",
        "| **Step**    | **Who** |\n| ----------- | ------- |\n| Drain queue | @Bob    |\n| Deploy      | CI      |",
        '```python\n@retry(times=3)\ndef deploy():\n    run("make release")\n```',
        "▸ Rollback\nRevert the tag and redeploy.",
        "- [x] Announce in #ops\n- [ ] Update the runbook",
        'See [the runbook](https://wiki.example.com/runbook "Runbook v2") and https://example.atlassian.net/browse/OPS-7',
      ].join("\n\n"),
    );
  });
});
