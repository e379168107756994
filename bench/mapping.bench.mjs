// Mapping throughput: maps BENCH_MAPPING_STORIES generated stories (default 100,000), each with
// 3 tasks, a comment and time entries, tinyPM → target → tinyPM with both default mappings.
// Figures: items (stories + tasks) mapped both ways per second, per target, and peak memory.
// Also per CPU second, which a loaded machine does not skew. Generation is not timed; items are
// generated and mapped in chunks so memory stays flat. Each freshly generated chunk is settled
// (two minor GCs, untimed) before it is mapped, as inputs read earlier would be: otherwise the
// scavenges in the timed section spend their time copying the generator's objects, not the
// mapping's (that cost is generation's; it is ~25% of the CPU time when counted).
// Usage: npm run bench -- mapping
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { compileMapping } from "../dist/mapping/compile.js";
import { loadMapping } from "../dist/mapping/load.js";
import { matchUsers } from "../dist/mapping/user-match.js";

const STORIES = Number(process.env.BENCH_MAPPING_STORIES ?? 100_000);
const TASKS_PER_STORY = 3;
const CHUNK = 100;
const TARGET_RATE = 50_000;
const WARM_UP = 2_000;

/** A minor GC on demand (`--expose-gc` set at run time; `gc` is then a global of new contexts). */
function minorGc() {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  return () => gc({ type: "minor" });
}

const USERS = Array.from({ length: 20 }, (_, i) => ({
  id: String(i + 1),
  login: `user${i + 1}`,
  name: `User ${i + 1}`,
  email: `user${i + 1}@example.com`,
}));
const STATUSES = ["TO DO", "IN PROGRESS", "TESTING", "COMPLETED"];
const PRIORITIES = ["MUST_HAVE", "SHOULD_HAVE", "COULD_HAVE", "WONT_HAVE"];
const COLORS = ["WHITE", "YELLOW", "ORANGE", "RED", "GREEN", "BLUE"];

/** A small deterministic PRNG (mulberry32), so every run maps the same items. */
function random(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generate(n, rnd) {
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const base = { system: "tinypm", metadata: {}, comments: [], timeEntries: [] };
  const story = {
    ...base,
    kind: "story",
    id: String(n),
    title: `Story ${n}: as a user I want feature ${Math.floor(rnd() * 1e6)}`,
    description: `Details for #${n}, ask @user${1 + (n % 20)}.\n\n- one\n- two`,
    status: pick(["PENDING", "ACCEPTED", "REJECTED"]),
    priority: pick(PRIORITIES),
    estimate: pick([0.5, 1, 2, 3, 5, 8]),
    iteration: { id: String(1 + (n % 10)), name: `Sprint ${1 + (n % 10)}` },
    assignees: [pick(USERS)],
    acceptingUser: pick(USERS),
    labels: ["backend", `area ${n % 7}`],
    color: pick(COLORS),
    position: n,
    comments: [
      {
        author: pick(USERS),
        createdAt: "2012-02-04T21:17:47.765",
        body: `Looks good @user2 (#${n})`,
      },
    ],
  };
  const tasks = Array.from({ length: TASKS_PER_STORY }, (_, i) => ({
    ...base,
    kind: "task",
    id: `${n}-${i}`,
    parentId: String(n),
    title: `Task ${i} of ${n}`,
    description: "Do the thing",
    status: pick(STATUSES),
    assignees: [pick(USERS), pick(USERS)].filter((u, j, all) => all.indexOf(u) === j),
    labels: [],
    startedAt: "2012-02-04T21:17:47.765",
    timeEntries: [{ user: pick(USERS), date: "2012-02-05", hours: 1.5, remainingHours: 2 }],
  }));
  return [story, ...tasks];
}

/** Maps one item there and back, as the engine would (item, comments, time entries). */
function roundTrip(m, item) {
  const draft = m.toTarget(item);
  const read = {
    ...draft,
    system: m.target,
    id: "x",
    metadata: draft.metadata ?? {},
    comments: item.comments.map((c) => ({
      ...m.commentToTarget(c),
      createdAt: "2030-01-01T00:00:00Z",
    })),
    timeEntries: m.timeEntriesToTarget(item),
  };
  const back = m.toTinypm(read);
  for (const c of read.comments) m.commentToTinypm(c);
  m.timeEntriesToTinypm(read);
  return back;
}

function measure(target, peak) {
  const spec = loadMapping(fileURLToPath(new URL(`../mappings/${target}.yaml`, import.meta.url)));
  const targetUsers = USERS.map((u) =>
    target === "github"
      ? { id: `gh-${u.login}`, login: `gh-${u.login}`, email: u.email }
      : { id: `acc-${u.id}`, name: u.name },
  );
  const { table } = matchUsers({ tinypmUsers: USERS, targetUsers });
  const m = compileMapping(spec, { users: table });
  const rnd = random(42);
  // Let the JIT settle first (not counted), as a long migration would.
  for (let n = 0; n < WARM_UP; n++) for (const item of generate(n, rnd)) roundTrip(m, item);
  const settle = minorGc();
  let items = 0;
  let ms = 0;
  let cpuMs = 0;
  for (let start = 0; start < STORIES; start += CHUNK) {
    const chunk = [];
    for (let n = start; n < Math.min(STORIES, start + CHUNK); n++) chunk.push(...generate(n, rnd));
    settle();
    settle();
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    for (const item of chunk) roundTrip(m, item);
    const c1 = process.cpuUsage(c0);
    ms += performance.now() - t0;
    cpuMs += (c1.user + c1.system) / 1000;
    items += chunk.length;
    const { rss, heapUsed } = process.memoryUsage();
    peak.rss = Math.max(peak.rss, rss);
    peak.heap = Math.max(peak.heap, heapUsed);
  }
  return {
    items,
    rate: Math.round((items / ms) * 1000),
    cpuRate: Math.round((items / cpuMs) * 1000),
  };
}

export async function run() {
  const peak = { rss: 0, heap: 0 };
  const loadBefore = loadavg()[0];
  const github = measure("github", peak);
  const jira = measure("jira", peak);
  const mb = (b) => Math.round(b / 1048576);
  return {
    name: "mapping",
    figures: {
      stories: STORIES,
      "items per target (stories + tasks)": github.items,
      "github items/s (both ways)": github.rate,
      "jira items/s (both ways)": jira.rate,
      // On a shared machine wall time depends on the load; CPU time does not.
      "github items per CPU second": github.cpuRate,
      "jira items per CPU second": jira.cpuRate,
      "peak rss MB": mb(peak.rss),
      "peak heap MB": mb(peak.heap),
      "load average (1 min) before/after": `${loadBefore.toFixed(1)} / ${loadavg()[0].toFixed(1)}`,
    },
    targets: {
      "items/s": `≥ ${TARGET_RATE.toLocaleString("en")} per target (per CPU second on a loaded machine)`,
    },
  };
}
