/** What the rich-text tests share: the bundled mappings, ADF builders and the two sides' items. */
import fc from "fast-check";
import { fileURLToPath } from "node:url";
import { richDescriptionOf } from "../../../src/adapters/jira/adf-blocks.js";
import type { AdfNode } from "../../../src/adapters/jira/adf.js";
import { adfToMarkdown } from "../../../src/adapters/jira/adf-render.js";
import type { WorkItem } from "../../../src/core/model.js";
import { compileMapping, type CompiledMapping } from "../../../src/mapping/compile.js";
import { loadMapping } from "../../../src/mapping/load.js";
import { tinypmStory as storyOf } from "../../support/work-items.js";

/** A bundled mapping (`mappings/<name>.yaml`), compiled. */
export const bundledMapping = (name: "github" | "jira"): CompiledMapping =>
  compileMapping(
    loadMapping(fileURLToPath(new URL(`../../../mappings/${name}.yaml`, import.meta.url))),
  );

/** A random word of letters and digits, a letter first. */
export const word = fc.stringMatching(/^[A-Za-z][a-z0-9]{0,7}$/);

/** An ADF text node, with marks when given. */
export const t = (text: string, marks?: AdfNode["marks"]): AdfNode => ({
  type: "text",
  text,
  ...(marks && { marks }),
});

/** An ADF paragraph. */
export const p = (...content: AdfNode[]): AdfNode => ({ type: "paragraph", content });

/** A linked Jira story whose description is `doc`. */
export function jiraItem(doc: AdfNode, title = "T"): WorkItem {
  return {
    system: "jira",
    kind: "story",
    id: "WID-1",
    title,
    description: adfToMarkdown(doc),
    richDescription: richDescriptionOf(doc),
    status: "To Do",
    assignees: [],
    labels: [],
    comments: [],
    timeEntries: [],
    metadata: {},
    marker: { job: "j", origin: "tinypm", originKind: "story", originId: "1" },
  };
}

/** A tinyPM story. */
export const tinypmStory = (description: string, title = "T"): WorkItem =>
  storyOf("1", { title, description });
