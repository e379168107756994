import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { WorkItemFields } from "../../core/model.js";
import { storyToItem, taskToItem, type MapContext } from "./map.js";
import { applyStoryFields, applyTaskFields } from "./patch.js";
import { rawStory, rawTask } from "./schema.js";
import { buildXml, parseXml } from "./wire.js";

const users = [
  { id: "1", login: "alice", name: "Alice Smith", email: "alice@example.com" },
  { id: "2", login: "bob", name: "Bob Jones", email: "bob@example.com" },
  { id: "3", login: "zoë", name: "Zoë Ünïcode", email: "zoe@example.com" },
];
const ctx: MapContext = {
  version: "2.6",
  statuses: [
    { id: "1", name: "TO DO" },
    { id: "2", name: "IN PROGRESS" },
    { id: "4", name: "TESTING" },
    { id: "3", name: "COMPLETED" },
  ],
  iterations: [
    { id: "1", name: "Sprint 1" },
    { id: "2", name: "Sprint 2" },
  ],
  users,
};
const limits = { maxBytes: 1 << 22, maxDepth: 32 };

/** Text XML 1.0 can carry: no C0 controls but tab, LF and CR; no U+FFFE/U+FFFF. */
const xmlText = fc
  .string({ unit: "grapheme", maxLength: 40 })
  .map((s) => s.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, ""));
const decimal = fc.integer({ min: 0, max: 4000 }).map((n) => n / 4);
const user = fc.constantFrom(...users);
const longDate = fc
  .date({
    min: new Date("2000-01-01T00:00:00Z"),
    max: new Date("2030-12-31T00:00:00Z"),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString().slice(0, 23));

const storyFields = fc.record(
  {
    title: xmlText,
    description: xmlText,
    status: fc.constantFrom("PENDING", "ACCEPTED", "REJECTED"),
    priority: fc.constantFrom("MUST_HAVE", "SHOULD_HAVE", "COULD_HAVE", "WONT_HAVE"),
    estimate: decimal,
    iteration: fc.constantFrom({ id: "1", name: "Sprint 1" }, { id: "2", name: "Sprint 2" }),
    assignees: fc.array(user, { maxLength: 1 }),
    acceptingUser: user,
    labels: fc.uniqueArray(
      xmlText.filter((t) => t !== ""),
      { maxLength: 4 },
    ),
    color: fc.constantFrom("WHITE", "YELLOW", "ORANGE", "RED", "GREEN", "BLUE"),
    position: fc.integer({ min: 1, max: 10_000 }),
  },
  { requiredKeys: ["title", "status", "assignees", "labels"] },
);

const taskFields = fc.record(
  {
    title: xmlText,
    description: xmlText,
    status: fc.constantFrom("TO DO", "IN PROGRESS", "TESTING", "COMPLETED"),
    estimate: decimal,
    assignees: fc.uniqueArray(user, { maxLength: 3, selector: (u) => u.id }),
    startedAt: longDate,
    completedAt: longDate,
  },
  { requiredKeys: ["title", "status", "assignees"] },
);

const byId = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(byId)
    : v && typeof v === "object" && "login" in v && "id" in v
      ? { id: v.id }
      : v;

/** The given keys of `item`, users reduced to their ids (a write sends `<user><id/></user>`). */
function pick(item: object, fields: object): Record<string, unknown> {
  const record = item as Record<string, unknown>;
  return Object.fromEntries(Object.keys(fields).map((k) => [k, byId(record[k])]));
}

describe("written then read back (property)", () => {
  it("gives back any story's fields unchanged through the wire", () => {
    fc.assert(
      fc.property(storyFields, (fields: Partial<WorkItemFields>) => {
        const xml = buildXml("userStory", { id: "1", ...applyStoryFields({}, fields, ctx) });
        const raw = rawStory.parse(parseXml(xml, limits).root);
        expect(pick(storyToItem(raw, ctx), fields)).toEqual(pick(fields, fields));
      }),
      { numRuns: 300 },
    );
  });

  it("gives back any task's fields unchanged through the wire", () => {
    fc.assert(
      fc.property(taskFields, (fields: Partial<WorkItemFields>) => {
        const xml = buildXml("task", { id: "1", ...applyTaskFields({}, fields, ctx) });
        const raw = rawTask.parse(parseXml(xml, limits).root);
        // The wire answers a status by id; the project's table names it.
        const item = taskToItem(raw, ctx);
        expect(pick(item, fields)).toEqual(pick(fields, fields));
      }),
      { numRuns: 300 },
    );
  });
});
