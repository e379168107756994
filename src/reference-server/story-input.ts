import { badRequest } from "./api-error.js";
import {
  ACCEPTANCE,
  COLORS,
  PRIORITIES,
  type IterationRecord,
  type ProjectRecord,
} from "./model.js";
import {
  expectRoot,
  readDecimal,
  readEnum,
  readInt,
  readList,
  readRefId,
  readRequiredText,
  readText,
} from "./read-input.js";
import type { ReferenceStore, StoryInput } from "./store.js";
import { childOf, type XmlElement } from "./xml-read.js";

/**
 * Reads a `<userStory>` request body (POST or PUT) into a complete story: every element left
 * out becomes null, as tinyPM's full-replacement update does.
 */
export function readStoryInput(
  el: XmlElement,
  opts: {
    store: ReferenceStore;
    project: ProjectRecord;
    /** The iteration implied by the URL (current or `/iteration/{id}`), overriding the body. */
    iteration?: IterationRecord | undefined;
  },
): StoryInput {
  expectRoot(el, "userStory");
  const { store, project } = opts;
  const tags = (readList(el, "tags", "tag") ?? []).map((t) => t.text.trim()).filter(Boolean);
  return {
    projectId: project.id,
    position: readInt(el, "position") ?? store.nextPosition(project.id),
    name: readRequiredText(el, "name"),
    description: readText(el, "description"),
    priority: readPriority(el),
    estimatedEffort: readDecimal(el, "estimatedEffort"),
    iterationId: opts.iteration?.id ?? readIteration(el, store, project),
    color: readEnum(el, "color", COLORS),
    ownerId: readUser(el, "owner", store),
    acceptingUserId: readUser(el, "acceptingUser", store),
    acceptanceStatus: readEnum(el, "acceptanceStatus", ACCEPTANCE),
    tags: [...new Set(tags)],
  };
}

/** `<priority>` with `<id>`, `<name>` or inner `<priority>`; a bare `1`…`4` or name also works. */
function readPriority(el: XmlElement): number | undefined {
  const p = childOf(el, "priority");
  if (p === undefined) return undefined;
  const raw =
    childOf(p, "id")?.text ??
    childOf(p, "name")?.text ??
    childOf(p, "priority")?.text ??
    (p.children.length === 0 ? p.text : "");
  const t = raw.trim();
  if (t === "") return undefined;
  const byName = PRIORITIES.indexOf(t as (typeof PRIORITIES)[number]);
  if (byName >= 0) return byName + 1;
  if (/^[1-4]$/.test(t)) return Number(t);
  throw badRequest(
    `Invalid <priority>: ${JSON.stringify(t)} is not 1-4 or one of ${PRIORITIES.join(", ")}`,
  );
}

function readIteration(
  el: XmlElement,
  store: ReferenceStore,
  project: ProjectRecord,
): number | undefined {
  const fromRef = readRefId(el, "iteration");
  const name = fromRef === undefined ? "iterationId" : "iteration";
  const id = fromRef ?? readInt(el, "iterationId", 1);
  if (id === undefined) return undefined;
  if (store.iteration(id)?.projectId !== project.id) {
    const valid = store.iterationsOf(project.id).map((it) => it.id);
    throw badRequest(
      `Invalid <${name}>: iteration ${id} is not an iteration of project ${project.id}` +
        ` (valid: ${valid.join(", ") || "none"})`,
    );
  }
  return id;
}

export function readUser(el: XmlElement, name: string, store: ReferenceStore): number | undefined {
  const id = readRefId(el, name);
  if (id !== undefined && store.user(id) === undefined) {
    throw badRequest(`Invalid <${name}>: user ${id} does not exist`);
  }
  return id;
}
