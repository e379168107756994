import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log/logger.js";
import { createAccess } from "../../src/serve/auth.js";
import { startServeServer, type ServeServer } from "../../src/serve/server.js";
import { createService } from "../../src/serve/service.js";
import type { ServeJob } from "../../src/serve/types.js";
import { openState, type StateLocation } from "../../src/state/open-state.js";
import type { IntentDraft, StateStore } from "../../src/state/store.js";
import type { PostgresServer } from "../support/postgres-server.js";
import { postgresSkipReason, startPostgres } from "../support/postgres-server.js";
import { tempDir } from "../cli/fixtures.js";
import { link } from "./support/state-suite.js";

// The serve dashboard and /api/jobs show each job's import claims (issue #19), from either
// backend: per job, the claimed items of its target and the job holding each.

const SHARED = "github:api.github.test/acme/widgets";
const OTHER = "jira:jira.test/WID";
const jobs: ServeJob[] = [
  {
    name: "gh1",
    schedule: undefined,
    target: {
      name: "repo",
      type: "github",
      owner: "acme",
      repo: "widgets",
      webhookSecret: undefined,
      location: SHARED,
    },
  },
  {
    name: "gh2",
    schedule: undefined,
    target: {
      name: "repo",
      type: "github",
      owner: "acme",
      repo: "widgets",
      webhookSecret: undefined,
      location: SHARED,
    },
  },
  {
    name: "jr",
    schedule: undefined,
    target: {
      name: "site",
      type: "jira",
      project: "WID",
      webhookSecret: undefined,
      location: OTHER,
    },
  },
];

const draft = (job: string, targetId: string): IntentDraft => ({
  job,
  kind: "story",
  originSystem: "github",
  originId: targetId,
  targetSystem: "tinypm",
  payloadHash: `h-${targetId}`,
});

/** gh1 claims and imports #1 and claims #2; gh2 claims #3; jr holds none. */
async function seed(state: StateStore): Promise<void> {
  const one = await state.claimImport(draft("gh1", "1"), SHARED);
  if (one.intentId === undefined) throw new Error("claim of #1 refused");
  // An import's link: the created item is the tinyPM story, the claimed issue its target.
  await state.confirmIntent(one.intentId, { ...link("101", "1", "gh1"), origin: "github" });
  await state.claimImport(draft("gh1", "2"), SHARED);
  await state.claimImport(draft("gh2", "3"), SHARED);
  // gh2 asking for gh1's item finds it taken.
  expect(await state.claimImport(draft("gh2", "2"), SHARED)).toEqual({ claimedBy: "gh1" });
}

interface JobsAnswer {
  jobs: {
    name: string;
    claims: {
      held: number;
      imported: number;
      items: { targetId: string; job: string; status: string; location: string }[];
    };
  }[];
}

let pg: PostgresServer | undefined;
const tmp = tempDir();
beforeAll(async () => {
  if (postgresSkipReason === undefined) pg = await startPostgres();
});
afterAll(async () => {
  await pg?.stop();
  tmp.cleanup();
});

const backends: { name: string; location: () => Promise<StateLocation>; skip: boolean }[] = [
  {
    name: "SQLite",
    location: () => Promise.resolve({ backend: "sqlite", path: join(tmp.dir, "claims.db") }),
    skip: false,
  },
  {
    name: `PostgreSQL${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
    location: async () => {
      if (pg === undefined) throw new Error("no PostgreSQL");
      return { backend: "postgres", url: await pg.createDatabase("serve_claims") };
    },
    skip: postgresSkipReason !== undefined,
  },
];

describe.each(backends)("the serve dashboard's import claims on $name", (b) => {
  it.skipIf(b.skip)(
    "lists per job the claimed items of its target and the job holding each",
    async () => {
      const location = await b.location();
      const writer = await openState(location);
      try {
        await seed(writer);
      } finally {
        await writer.close();
      }
      const service = createService({
        jobs,
        logger: createLogger({ level: "silent", stream: { write: () => true } }),
        execute: () => Promise.reject(new Error("no job runs here")),
        probe: () => Promise.resolve([]),
        readState: async (fn) => {
          const state = await openState(location, { readOnly: true });
          try {
            return await fn(state);
          } finally {
            await state.close();
          }
        },
        writeState: () => Promise.reject(new Error("not used")),
      });
      let server: ServeServer | undefined;
      try {
        server = await startServeServer({
          host: "127.0.0.1",
          port: 0,
          service,
          access: createAccess(undefined),
          logger: createLogger({ level: "silent", stream: { write: () => true } }),
        });
        const res = await fetch(`${server.origin}/api/jobs`);
        expect(res.status).toBe(200);
        const answer = (await res.json()) as JobsAnswer;
        const view = (name: string) => {
          const j = answer.jobs.find((x) => x.name === name);
          return {
            held: j?.claims.held,
            imported: j?.claims.imported,
            items: j?.claims.items.map((c) => `${c.targetId} ${c.job} ${c.status}`).sort(),
          };
        };
        const shared = ["1 gh1 imported", "2 gh1 importing", "3 gh2 importing"];
        expect(view("gh1")).toEqual({ held: 2, imported: 1, items: shared });
        expect(view("gh2")).toEqual({ held: 1, imported: 0, items: shared });
        expect(view("jr")).toEqual({ held: 0, imported: 0, items: [] });

        const html = await (await fetch(server.origin)).text();
        const section = html.slice(html.indexOf(`<h2 id="claims">`));
        expect(section).toContain(`data-location="${SHARED}"`);
        expect(section).toContain(`<tr data-claim="1" data-claimed-by="gh1">`);
        expect(section).toContain(`<tr data-claim="2" data-claimed-by="gh1">`);
        expect(section).toContain(`<tr data-claim="3" data-claimed-by="gh2">`);
        // One table per target: the shared repository's claims are listed once.
        expect(section.match(/data-claim="1"/g)).toHaveLength(1);
        expect(html).toContain(`<td data-claims="2">2 (1 imported, 1 not)</td>`);
        expect(html).toContain(`<td data-claims="0">`);
      } finally {
        await server?.close();
        await service.stop();
      }
    },
  );
});
