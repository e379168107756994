import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ItemRef, WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { startPersonProxy, type ProxiedRequest } from "../support/person-proxy.js";
import { startWorld, storyLinks, type World } from "./world.js";

// Jira's update is a PUT, then transitions and the like, then a read-back. A person who saves a
// field the PUT wrote before that read-back leaves the person's value in it: taken as Jira's
// normalisation of what was sent, it would become the link's base and the edit would never reach
// tinyPM. The run reaches the sandbox through a proxy that lets the person save right after the
// tool's PUT was answered, before the answer reaches the tool.
describe.each(["cloud", "datacenter"] as const)(
  "a person's save on Jira (%s) between the update's PUT and its read-back",
  (deployment) => {
    let world: World;

    beforeAll(async () => {
      world = await startWorld({
        target: "jira",
        generate: "stories=2,tasks=0,comments=0",
        jira: { deployment },
      });
      await world.run("migrate");
    });
    afterAll(async () => {
      await world.close();
    });

    const changelogReads = (requests: readonly ProxiedRequest[]): number =>
      requests.filter((r) => r.path.includes("/changelog") || r.path.includes("expand=changelog"))
        .length;
    const isEdit = (r: ProxiedRequest, key: string): boolean =>
      r.method === "PUT" &&
      new RegExp(`^/rest/api/[23]/issue/${key}(\\?|$)`).test(r.path) &&
      r.status < 300;
    const read = async (tracker: Tracker, ref: ItemRef): Promise<WorkItem> => {
      const item = await tracker.get(ref);
      if (item === undefined) throw new Error(`no item ${ref.id}`);
      return item;
    };

    it("reaches tinyPM on the next run: title, description and labels", async () => {
      const link = storyLinks(world, 2)[0];
      if (link === undefined) throw new Error("no story link");
      const tinypmRef = { kind: "story", id: link.tinypmId } as const;
      const targetRef = { kind: "story", id: link.targetId } as const;
      const tinypm = world.tinypmTracker();
      const person = world.targetTracker();
      let edits = 0;
      const proxy = await startPersonProxy({
        upstream: world.target.server.url,
        afterAnswer: async (r) => {
          if (!isEdit(r, link.targetId) || edits++ > 0) return;
          const now = await read(person, targetRef);
          await person.update(targetRef, {
            set: {
              title: "Saved by a person",
              description: "A person's description.",
              labels: [...now.labels, "person-label"],
            },
          });
        },
      });
      try {
        const before = await read(tinypm, tinypmRef);
        await tinypm.update(tinypmRef, {
          set: {
            title: "Written from tinyPM",
            description: "tinyPM's description.",
            labels: [...before.labels, "tinypm-label"],
          },
        });
        const first = await world.run("sync", { targetUrl: proxy.url });
        expect(edits).toBe(1);
        expect(first.summary).toMatchObject({ updated: 1, failed: 0 });
        const onJira = await read(person, targetRef);
        expect(onJira.title).toBe("Saved by a person");
        expect(onJira.labels).toEqual(expect.arrayContaining(["tinypm-label", "person-label"]));

        // The person's save is a change on Jira the next run carries to tinyPM; Jira keeps it.
        const second = await world.run("sync");
        expect(second.summary).toMatchObject({ updated: 1, failed: 0, conflicts: 0 });
        const now = await read(tinypm, tinypmRef);
        expect(now.title).toBe("Saved by a person");
        expect(now.description?.trim()).toBe("A person's description.");
        expect(now.labels).toEqual(expect.arrayContaining(["tinypm-label", "person-label"]));
        const kept = await read(person, targetRef);
        expect(kept.title).toBe("Saved by a person");
        expect(kept.description?.trim()).toBe("A person's description.");
        const third = await world.run("sync");
        expect(third.summary).toMatchObject({ updated: 0, created: 0, failed: 0 });
        // The changelog was read once: for the update whose fields read back as nobody sent them.
        expect(changelogReads(proxy.requests)).toBe(1);
      } finally {
        await proxy.close();
        await tinypm.close();
        await person.close();
      }
    }, 120_000);

    it("reaches tinyPM on the next run: a status moved on right before the read-back", async () => {
      const link = storyLinks(world, 2)[0];
      if (link === undefined) throw new Error("no story link");
      const tinypmRef = { kind: "story", id: link.tinypmId } as const;
      const targetRef = { kind: "story", id: link.targetId } as const;
      const tinypm = world.tinypmTracker();
      const person = world.targetTracker();
      const issue = new RegExp(`^/rest/api/[23]/issue/${link.targetId}(\\?|$)`);
      const seen = { edit: false, moves: 0 };
      // The update's read-back is its first read of the issue after its PUT (the transitions and
      // the property write come in between): the person moves the issue on right before it.
      const proxy = await startPersonProxy({
        upstream: world.target.server.url,
        beforeForward: async (r) => {
          if (r.method === "PUT" && issue.test(r.path)) seen.edit = true;
          else if (seen.edit && r.method === "GET" && issue.test(r.path) && seen.moves++ === 0)
            await person.update(targetRef, { set: { status: "In Progress" } });
        },
      });
      try {
        await tinypm.update(tinypmRef, {
          set: { title: "Accepted in tinyPM", status: "ACCEPTED" },
        });
        const first = await world.run("sync", { targetUrl: proxy.url });
        expect(seen.moves).toBeGreaterThan(0);
        expect(first.summary).toMatchObject({ updated: 1, failed: 0 });
        expect((await read(person, targetRef)).status).toBe("In Progress");

        const second = await world.run("sync");
        expect(second.summary).toMatchObject({ updated: 1, failed: 0, conflicts: 0 });
        expect((await read(tinypm, tinypmRef)).status).toBe("PENDING");
        expect((await read(person, targetRef)).status).toBe("In Progress");
        const third = await world.run("sync");
        expect(third.summary).toMatchObject({ updated: 0, created: 0, failed: 0 });
      } finally {
        await proxy.close();
        await tinypm.close();
        await person.close();
      }
    }, 120_000);

    it("reads no changelog for an update whose fields read back as sent", async () => {
      const link = storyLinks(world, 2)[1];
      if (link === undefined) throw new Error("no story link");
      const tinypmRef = { kind: "story", id: link.tinypmId } as const;
      const tinypm = world.tinypmTracker();
      const proxy = await startPersonProxy({ upstream: world.target.server.url });
      try {
        const before = await read(tinypm, tinypmRef);
        await tinypm.update(tinypmRef, {
          set: {
            title: "Renamed in tinyPM",
            description: "Some **bold** text,\n\n- a list\n- of two",
            labels: [...before.labels, "another"],
          },
        });
        const report = await world.run("sync", { targetUrl: proxy.url });
        expect(report.summary).toMatchObject({ updated: 1, failed: 0 });
        expect(proxy.requests.filter((r) => isEdit(r, link.targetId))).toHaveLength(1);
        expect(changelogReads(proxy.requests)).toBe(0);
        expect((await world.run("sync")).summary).toMatchObject({ updated: 0, failed: 0 });
      } finally {
        await proxy.close();
        await tinypm.close();
      }
    }, 120_000);
  },
);
