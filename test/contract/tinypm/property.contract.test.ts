import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UserRef, WorkItemFields } from "../../../src/core/model.js";
import { startTinypm, type TinypmFixture } from "./setup.js";

const xmlText = fc
  .string({ unit: "grapheme", maxLength: 30 })
  .map((s) => s.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, ""));
/** tinyPM requires a name. */
const name = xmlText.filter((t) => t.trim() !== "");
/** The reference server trims tags (they are tokens). */
const tag = xmlText.map((t) => t.trim()).filter((t) => t !== "");
const decimal = fc.integer({ min: 0, max: 400 }).map((n) => n / 4);

const ids = (users: readonly UserRef[] | undefined) => users?.map((u) => u.id);

describe.each(["2.6", "2.5"] as const)(
  "written then read back through tinyPM %s (property)",
  (apiVersion) => {
    let f: TinypmFixture;
    let users: readonly UserRef[];
    let iterations: readonly { id: string; name: string }[];
    let statuses: readonly string[];
    beforeAll(async () => {
      f = await startTinypm({ apiVersion, generate: "empty" });
      users = await f.tracker.listUsers();
      iterations = await f.tracker.listIterations();
      statuses = (await f.tracker.listTaskStatuses()).map((s) => s.name);
    });
    afterAll(() => f.close());

    it("gives back any story and task unchanged", async () => {
      const user = fc.constantFrom(...users);
      const story = fc.record(
        {
          title: name,
          description: xmlText,
          status: fc.constantFrom("PENDING", "ACCEPTED", "REJECTED"),
          priority: fc.constantFrom("MUST_HAVE", "SHOULD_HAVE", "COULD_HAVE", "WONT_HAVE"),
          estimate: decimal,
          iteration: fc.constantFrom(...iterations.map((i) => ({ id: i.id, name: i.name }))),
          assignees: fc.array(user, { maxLength: 1 }),
          acceptingUser: user,
          labels: apiVersion === "2.6" ? fc.uniqueArray(tag, { maxLength: 3 }) : fc.constant([]),
          color: fc.constantFrom("WHITE", "YELLOW", "ORANGE", "RED", "GREEN", "BLUE"),
        },
        { requiredKeys: ["title", "status", "assignees", "labels"] },
      );
      const task = fc.record(
        {
          title: name,
          description: xmlText,
          status: fc.constantFrom(...statuses),
          estimate: decimal,
          assignees: fc.uniqueArray(user, { maxLength: 3, selector: (u) => u.id }),
        },
        { requiredKeys: ["title", "status", "assignees"] },
      );
      await fc.assert(
        fc.asyncProperty(
          story,
          task,
          async (s: Partial<WorkItemFields>, t: Partial<WorkItemFields>) => {
            const created = await f.tracker.create({
              kind: "story",
              title: "",
              status: "PENDING",
              assignees: [],
              labels: [],
              ...s,
            });
            const read = (await f.tracker.get({ kind: "story", id: created.id }))!;
            const { assignees, acceptingUser, ...rest } = s;
            expect(read).toMatchObject(rest);
            expect(ids(read.assignees)).toEqual(ids(assignees));
            expect(read.acceptingUser?.id).toBe(acceptingUser?.id);
            const madeTask = await f.tracker.create({
              kind: "task",
              parentId: created.id,
              title: "",
              status: statuses[0]!,
              assignees: [],
              labels: [],
              ...t,
            });
            const updated = await f.tracker.update(
              { kind: "task", id: madeTask.id },
              { set: t, base: madeTask },
            );
            const { assignees: taskUsers, ...taskRest } = t;
            expect(updated).toMatchObject(taskRest);
            expect(ids(updated.assignees)).toEqual(ids(taskUsers));
          },
        ),
        { numRuns: 12 },
      );
    });
  },
);
