import { describe, expect, it } from "vitest";
import { openState } from "../../src/state/open-state.js";
import { postgresSkipReason } from "../support/postgres-server.js";
import { writeConfig, type Servers } from "./fixtures.js";
import { editConfig, eventually, startServe, type Served } from "./serve-support.js";
import { useServeWorld } from "./serve-world.js";

// A partition between two serve workers and their PostgreSQL state: the server is stopped for
// about 14 s while edits flow. The workers stay alive (/healthz), say they are not ready
// (/readyz names the state), write nothing to any system once their leases are given up, and
// resume when the server is back: ready again, edits synced, nothing created twice.

/** The lease's life in this test (TINYPM_SYNC_LEASE_TTL_MS), and how long it is vouched for. */
const TTL_MS = 4000;
const VOUCHED_MS = 3200;
/** How long after the leases are given up a write already sent may still land (a loaded machine). */
const IN_FLIGHT_MS = 5000;
const OUTAGE_MS = 14_000;

const world = useServeWorld("stories=4,tasks=1,comments=0", { postgres: true });
const { tmp, served } = world;

interface Ready {
  status: number;
  body: { status: string; reasons?: string[] };
}

const readyz = async (s: Served): Promise<Ready> => {
  const res = await fetch(`${s.url}/readyz`);
  return { status: res.status, body: (await res.json()) as Ready["body"] };
};

/** Whether the worker's process still runs (no crash). */
const alive = (s: Served): boolean => {
  if (s.proc.pid === undefined) return false;
  try {
    process.kill(s.proc.pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Every write any system received so far (tinyPM, GitHub, Jira). */
const writes = (x: Servers): number =>
  x.tinypm.stats().writes + x.github.stats().writes + x.jira.stats().writes;

describe.skipIf(postgresSkipReason !== undefined)(
  `serve workers partitioned from their PostgreSQL state${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("pause without a write while the database is away, say so in /readyz, stay alive, and resume with every edit and no duplicate", async () => {
      const pg = world.pg();
      const x = world.servers();
      const url = await pg.createDatabase("partition");
      const config = writeConfig(tmp.dir, x);
      editConfig(config, (c) => {
        c.jobs = c.jobs.map((j) => ({ ...j, schedule: { every: "2s" } }));
        c.state = { urlEnv: "STATE_URL" };
      });
      const env = { ...x.env, STATE_URL: url, TINYPM_SYNC_LEASE_TTL_MS: String(TTL_MS) };
      const a = await startServe(config, env);
      served.push(a);
      const b = await startServe(config, env);
      served.push(b);
      const workers = [a, b];
      const gh = { owner: x.github.owner, repo: x.github.repo };
      const issues = async (): Promise<{ number: number; title: string }[]> => {
        const res = await fetch(
          `${x.github.url}/repos/${gh.owner}/${gh.repo}/issues?state=all&per_page=100`,
          { headers: { authorization: `Bearer ${x.github.token}` } },
        );
        return (await res.json()) as { number: number; title: string }[];
      };
      const jiraIssues = async (): Promise<{ key: string }[]> => {
        const jql = encodeURIComponent(`project = ${x.jira.projectKey}`);
        const res = await fetch(
          `${x.jira.url}/rest/api/3/search/jql?jql=${jql}&maxResults=100&fields=summary`,
          {
            headers: {
              authorization: `Basic ${Buffer.from(`${x.jira.email}:${x.jira.token}`).toString("base64")}`,
            },
          },
        );
        return ((await res.json()) as { issues: { key: string }[] }).issues;
      };
      const items = x.tinypm.store
        .storiesOf(1)
        .reduce((n, s) => n + 1 + x.tinypm.store.tasksOf(s.id).length, 0);
      const story = x.tinypm.store.storiesOf(1)[0];
      if (story === undefined) throw new Error("no story");
      /** Renames the story's issue on GitHub and waits for tinyPM to show it. */
      let number: number | undefined;
      const editOnGithub = async (title: string): Promise<() => Promise<void>> => {
        number ??= (
          await eventually(
            async () => (await issues()).find((i) => i.title === story.name),
            "the story's issue on GitHub",
          )
        ).number;
        const res = await fetch(
          `${x.github.url}/repos/${gh.owner}/${gh.repo}/issues/${String(number)}`,
          {
            method: "PATCH",
            headers: {
              authorization: `Bearer ${x.github.token}`,
              "content-type": "application/json",
            },
            body: JSON.stringify({ title }),
          },
        );
        expect(res.status).toBe(200);
        return async () => {
          await eventually(
            () => (x.tinypm.store.story(story.id)?.name === title ? true : undefined),
            `"${title}" in tinyPM`,
            60_000,
          );
        };
      };

      // Both jobs synced, both workers ready.
      await eventually(
        async () => ((await issues()).length === items ? true : undefined),
        "every item on GitHub",
        90_000,
      );
      await eventually(
        async () => ((await jiraIssues()).length === items ? true : undefined),
        "every item on Jira",
        90_000,
      );
      for (const w of workers)
        await eventually(
          async () => ((await readyz(w)).status === 200 ? true : undefined),
          "ready",
        );
      const before = `${story.name} (before the outage)`;
      await (
        await editOnGithub(before)
      )();
      // …and its run finished: the base holds the edit (a run cut off between its write to
      // tinyPM and its base would rightly see the next edit as a conflict).
      await eventually(async () => {
        const state = await openState({ backend: "postgres", url }, { readOnly: true });
        try {
          const link = await state.getLinkByTinypm("gh", "story", String(story.id));
          return JSON.stringify(link?.base ?? null).includes(before) ? true : undefined;
        } finally {
          await state.close();
        }
      }, "the edit in the base");

      // The outage. Runs keep being scheduled every 2 s on both workers.
      await pg.pause();
      const stoppedAt = Date.now();
      let restarted = false;
      try {
        const during = await editOnGithub(`${story.name} (during the outage)`);
        for (const w of workers) {
          const r = await eventually(async () => {
            const now = await readyz(w);
            return now.status === 503 ? now : undefined;
          }, "/readyz 503 during the outage");
          expect(r.body.status).toBe("not ready");
          expect(r.body.reasons?.join("\n")).toMatch(/the state is not available/);
          const health = await fetch(`${w.url}/healthz`);
          expect(health.status).toBe(200);
        }
        // Every lease held when the server stopped is given up within VOUCHED_MS of its last
        // confirmed heartbeat; a write sent before then lands within IN_FLIGHT_MS. From then on,
        // nothing reaches any system until the database is back.
        const quietFrom = stoppedAt + VOUCHED_MS + IN_FLIGHT_MS;
        await new Promise((r) => setTimeout(r, Math.max(0, quietFrom - Date.now())));
        const atQuiet = writes(x);
        await new Promise((r) => setTimeout(r, Math.max(0, stoppedAt + OUTAGE_MS - Date.now())));
        expect(writes(x)).toBe(atQuiet);
        for (const w of workers) {
          expect(alive(w)).toBe(true);
          expect((await fetch(`${w.url}/healthz`)).status).toBe(200);
          expect((await readyz(w)).status).toBe(503);
        }
        await pg.start();
        restarted = true;

        // Back: ready again, the edit made during the outage and a later one reach tinyPM.
        for (const w of workers)
          await eventually(
            async () => ((await readyz(w)).status === 200 ? true : undefined),
            "/readyz 200 after the outage",
            90_000,
          );
        await during();
        await (
          await editOnGithub(`${story.name} (after the outage)`)
        )();
      } finally {
        if (!restarted) await pg.start();
      }
      for (const w of workers) expect(alive(w)).toBe(true);

      // Nothing was created twice, on either target, and no create is left unsettled.
      expect(await issues()).toHaveLength(items);
      expect(await jiraIssues()).toHaveLength(items);
      const state = await openState({ backend: "postgres", url }, { readOnly: true });
      try {
        for (const job of ["gh", "jr"]) {
          expect(await state.pendingIntents(job)).toEqual([]);
          expect(await state.countLinks(job)).toBe(items);
        }
      } finally {
        await state.close();
      }
    }, 110_000);
  },
);
