/**
 * Validation of Atlassian Document Format bodies (REST v3 `description`, comment `body`,
 * worklog `comment`). The sandbox stores and returns documents unchanged; it only refuses what
 * Jira refuses: anything that is not `{type:"doc", version:1, content:[…]}` made of known nodes.
 * https://developer.atlassian.com/cloud/jira/platform/apis/document/structure/
 */

/** An ADF document as stored (validated by `adfProblem`). */
export interface AdfDocument {
  readonly type: "doc";
  readonly version: 1;
  readonly content: readonly unknown[];
}

const BLOCK_NODES = new Set([
  "paragraph",
  "heading",
  "bulletList",
  "orderedList",
  "listItem",
  "codeBlock",
  "blockquote",
  "rule",
  "table",
  "tableRow",
  "tableHeader",
  "tableCell",
  "panel",
  "mediaSingle",
  "mediaGroup",
  "media",
  "expand",
  "nestedExpand",
  "taskList",
  "taskItem",
  "decisionList",
  "decisionItem",
  "blockCard",
  "embedCard",
  "layoutSection",
  "layoutColumn",
  "multiBodiedExtension",
  "extensionFrame",
]);

const INLINE_NODES = new Set([
  "text",
  "hardBreak",
  "mention",
  "emoji",
  "inlineCard",
  "date",
  "status",
  "mediaInline",
  "placeholder",
  "inlineExtension",
]);

const MARKS = new Set([
  "strong",
  "em",
  "code",
  "link",
  "strike",
  "underline",
  "textColor",
  "backgroundColor",
  "subsup",
  "alignment",
  "indentation",
  "annotation",
  "border",
  "breakout",
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Why `value` is not a valid ADF document, or undefined when it is one. */
export function adfProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return "the value is not an ADF document object";
  if (value.type !== "doc") return `the root node type is "${String(value.type)}", not "doc"`;
  if (value.version !== 1) return "the document version must be 1";
  if (!Array.isArray(value.content)) return "the document has no content array";
  return nodesProblem(value.content, "content");
}

function nodesProblem(nodes: readonly unknown[], path: string): string | undefined {
  for (const [i, node] of nodes.entries()) {
    const problem = nodeProblem(node, `${path}[${i}]`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function nodeProblem(node: unknown, path: string): string | undefined {
  if (!isRecord(node) || typeof node.type !== "string") return `${path} is not a node`;
  const { type } = node;
  if (type === "doc") return `${path}: a "doc" node may only be the root`;
  if (!BLOCK_NODES.has(type) && !INLINE_NODES.has(type)) {
    return `${path}: unknown node type "${type}"`;
  }
  if (type === "text" && (typeof node.text !== "string" || node.text === "")) {
    return `${path}: a text node needs a non-empty "text" string`;
  }
  if (node.marks !== undefined) {
    if (!Array.isArray(node.marks)) return `${path}.marks is not an array`;
    for (const mark of node.marks) {
      if (!isRecord(mark) || typeof mark.type !== "string" || !MARKS.has(mark.type)) {
        return `${path}.marks: unknown mark ${JSON.stringify(mark)}`;
      }
    }
  }
  if (node.content === undefined) return undefined;
  if (!Array.isArray(node.content)) return `${path}.content is not an array`;
  return nodesProblem(node.content, `${path}.content`);
}

/** Plain text of a document (texts joined, paragraphs separated by newlines), for JQL `~`. */
export function adfText(doc: unknown): string {
  if (!isRecord(doc)) return "";
  if (typeof doc.text === "string") return doc.text;
  if (!Array.isArray(doc.content)) return "";
  return doc.content.map(adfText).join(doc.type === "doc" ? "\n" : "");
}
