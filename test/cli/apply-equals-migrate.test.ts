import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { targetView } from "../reliability/snapshot.js";
import { jobTarget, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * Two identical worlds (same generated tinyPM project, fresh sandboxes): one migrated with
 * `migrate`, the other with `plan --migrate --save` then `apply`. Both targets end the same,
 * item for item (ids, URLs, times, the servers' ports and the tinyPM instance digest left out).
 */
const worlds: { servers: Servers; config: string }[] = [];
// A state each: the worlds share nothing.
const dirs = [tempDir(), tempDir()];

beforeAll(async () => {
  for (const tmp of dirs) {
    const servers = await startServers("stories=6,tasks=1,comments=1");
    worlds.push({ servers, config: writeConfig(tmp.dir, servers) });
  }
}, 60_000);
afterAll(async () => {
  await Promise.all(worlds.map((w) => w.servers.close()));
  for (const tmp of dirs) tmp.cleanup();
});

const cli = (w: { servers: Servers; config: string }, ...args: string[]) =>
  runCliProcess([...args, "--config", w.config, "--log-level", "warn"], {
    env: { ...w.servers.env },
  });

/** The target as a comparable text: every server's origin written alike. */
async function view(w: { servers: Servers }, job: "gh" | "jr"): Promise<unknown> {
  const target = jobTarget(w.servers, job);
  try {
    const text = JSON.stringify(await targetView(target));
    // The marker's `instance` is a digest of the tinyPM server's URL: one per world.
    const same = text
      .replace(/http:\/\/127\.0\.0\.1:\d+/g, "http://host")
      .replace(/"instance":"[0-9a-f]+"/g, '"instance":"tinypm"');
    return JSON.parse(same) as unknown;
  } finally {
    await target.close();
  }
}

describe.each(["gh", "jr"] as const)("apply of a saved migration plan of job %s", (job) => {
  it("leaves the target as migrate does on an identical world", async () => {
    const [migrated, applied] = worlds;
    if (migrated === undefined || applied === undefined) throw new Error("no worlds");
    expect((await cli(migrated, "migrate", "--job", job)).code).toBe(0);
    const file = join(dirs[1]?.dir ?? "", `${job}-plan.json`);
    expect((await cli(applied, "plan", "--migrate", "--job", job, "--save", file)).code).toBe(0);
    expect((await cli(applied, "apply", file)).code).toBe(0);
    const [a, b] = [await view(migrated, job), await view(applied, job)];
    expect(Object.keys((a as { counts: object }).counts)).toHaveLength(12);
    expect(b).toEqual(a);
  }, 180_000);
});
