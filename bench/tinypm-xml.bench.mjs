// Does the one-pass XML reader (src/adapters/tinypm/xml-tree.ts) still pay for itself (issue #20)?
// The documents a quiet sync reads — the tiered run's mix and the full scan's — are fetched once
// from the reference server (2.6, BENCH_XML_STORIES stories, default 10,000, 4 tasks each, 90 % in
// closed iterations), then each is parsed as the adapter does (`parseXml`: hostile-XML checks, then
// the one-pass reader) and with fast-xml-parser alone (the same checks, then `parseXmlWithParser`),
// in the same process, alternating, until each side has spent at least BENCH_XML_MS of CPU per
// kind of document. Both must give the same tree. Figures: CPU µs per document by route, and the
// CPU each reader spends on all the documents of one tiered run and of one full scan.
// Usage: npm run bench -- tinypm-xml
import { deepStrictEqual } from "node:assert";
import {
  checkHostileXml,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_RESPONSE_BYTES,
  parseXml,
  parseXmlWithParser,
} from "../dist/adapters/tinypm/wire.js";
import { startReferenceServer } from "../dist/reference-server/index.js";

const STORIES = Number(process.env.BENCH_XML_STORIES ?? 10_000);
const MIN_MS = Number(process.env.BENCH_XML_MS ?? 300);
/** Documents of each per-item route kept for timing (their cost is per document). */
const SAMPLE = 300;
const LIMITS = { maxBytes: DEFAULT_MAX_RESPONSE_BYTES, maxDepth: DEFAULT_MAX_DEPTH };

const oneSide = (text) => parseXml(text, LIMITS);
const parserOnly = (text) => {
  checkHostileXml(text, LIMITS);
  return parseXmlWithParser(text);
};

/** CPU µs per call of `parse` over `docs`, repeated until MIN_MS of CPU are spent. */
function cpuPerDoc(parse, docs) {
  let calls = 0;
  const start = process.cpuUsage();
  let spent = 0;
  while (spent < MIN_MS * 1000) {
    for (const d of docs) parse(d);
    calls += docs.length;
    const u = process.cpuUsage(start);
    spent = u.user + u.system;
  }
  return spent / calls;
}

async function documents(server) {
  const get = async (path) => {
    const res = await fetch(`${server.url}${path}`, {
      headers: { "x-tinypm-token": server.token },
    });
    if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
    return res.text();
  };
  const store = server.store;
  const stories = store.storiesOf(1);
  // As the adapter decides: an iteration is closed once its last day (start + duration) is past.
  const today = new Date().toISOString().slice(0, 10);
  const closed = (it) =>
    new Date(Date.parse(it.startDate) + it.duration * 86_400_000).toISOString().slice(0, 10) <=
    today;
  const open = stories.filter((s) => {
    const it = s.iterationId === undefined ? undefined : store.iteration(s.iterationId);
    return it === undefined || !closed(it);
  });
  const sample = stories.slice(0, SAMPLE);
  const tasks = sample.flatMap((s) => store.tasksOf(s.id)).slice(0, SAMPLE);
  const withIteration = [
    ...new Set(stories.map((s) => s.iterationId).filter((i) => i !== undefined)),
  ];
  const openIterations = new Set(open.map((s) => s.iterationId).filter((i) => i !== undefined));
  const closedIds = withIteration.filter((id) => !openIterations.has(id));
  const sheets = (ids) => Promise.all(ids.map((id) => get(`/iteration/${id}/timesheet`)));
  const docs = {
    "GET /project/:id/userstories": [await get("/project/1/userstories")],
    "GET /iteration/:id/timesheet, closed iterations": await sheets(closedIds),
    "GET /iteration/:id/timesheet, open iterations": await sheets([...openIterations]),
    "GET /userstory/:id": await Promise.all(sample.map((s) => get(`/userstory/${s.id}`))),
    "GET /userstory/:id/tasks": await Promise.all(
      sample.map((s) => get(`/userstory/${s.id}/tasks`)),
    ),
    "GET /task/:id": await Promise.all(tasks.map((t) => get(`/task/${t.id}`))),
    "GET /task/:id/timesheet": await Promise.all(tasks.map((t) => get(`/task/${t.id}/timesheet`))),
  };
  const taskCount = (list) => list.reduce((n, s) => n + store.tasksOf(s.id).length, 0);
  const backlogTasks = (list) => taskCount(list.filter((s) => s.iterationId === undefined));
  const mix = (list, closedSheets) => ({
    "GET /project/:id/userstories": 1,
    "GET /iteration/:id/timesheet, closed iterations": closedSheets,
    "GET /iteration/:id/timesheet, open iterations": openIterations.size,
    "GET /userstory/:id": list.length,
    "GET /userstory/:id/tasks": list.length,
    "GET /task/:id": taskCount(list),
    "GET /task/:id/timesheet": backlogTasks(list),
  });
  return {
    docs,
    mixes: {
      "tiered run": mix(open, openIterations.size),
      "full scan": mix(stories, withIteration.length),
    },
  };
}

export async function run() {
  const server = await startReferenceServer({
    generate: `stories=${STORIES},tasks=4,comments=1,closed=90`,
    seed: 20,
  });
  try {
    const { docs, mixes } = await documents(server);
    const figures = {};
    const perDoc = {};
    for (const [route, list] of Object.entries(docs)) {
      if (list.length === 0) continue;
      for (const d of list) deepStrictEqual(oneSide(d), parserOnly(d), `${route}: trees differ`);
      const bytes = Math.round(list.reduce((n, d) => n + d.length, 0) / list.length);
      // Alternate, twice each, and keep each side's best: the machine is shared.
      const a = Math.min(cpuPerDoc(oneSide, list), cpuPerDoc(oneSide, list));
      const b = Math.min(cpuPerDoc(parserOnly, list), cpuPerDoc(parserOnly, list));
      perDoc[route] = { a, b };
      figures[`${route} (${bytes} bytes): µs per document, one-pass / fast-xml-parser`] =
        `${a.toFixed(1)} / ${b.toFixed(1)} (× ${(b / a).toFixed(1)})`;
    }
    for (const [name, mix] of Object.entries(mixes)) {
      let a = 0;
      let b = 0;
      let requests = 0;
      for (const [route, n] of Object.entries(mix)) {
        if (n === 0) continue;
        a += n * perDoc[route].a;
        b += n * perDoc[route].b;
        requests += n;
      }
      figures[`${name} (${requests} documents): CPU ms parsing, one-pass / fast-xml-parser`] =
        `${(a / 1000).toFixed(0)} / ${(b / 1000).toFixed(0)} (saves ${((b - a) / 1000).toFixed(0)} ms, ${((b - a) / requests).toFixed(0)} µs per request)`;
    }
    return {
      name: `tinyPM XML: one-pass reader against fast-xml-parser on a quiet sync's documents (${STORIES} stories)`,
      figures,
    };
  } finally {
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await run();
  for (const [k, v] of Object.entries(result.figures)) console.log(`${k}: ${v}`);
}
