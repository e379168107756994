import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./github-sandbox-helpers.js";

/**
 * Replays real GitHub traffic recorded by `@octokit/fixtures` (normalised: ids 1000+, dates
 * 2017-10-10, ETags zeroed) against the sandbox, seeded with equivalent state, and compares
 * status codes, response shapes (every recorded key present with the same JSON type — the
 * sandbox may add fields GitHub introduced after 2022), stable values and the headers that
 * clients rely on (`link` URLs and rels, `etag`, `location`, `last-modified`, rate-limit headers).
 */

interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly status: number;
  readonly response: unknown;
  readonly headers: Readonly<Record<string, string | number>>;
  readonly reqheaders: Readonly<Record<string, string | number>>;
}

const OWNER = "octokit-fixture-org";
const USER = "octokit-fixture-user-a";

function load(scenario: string): Recorded[] {
  const url = new URL(
    `../../node_modules/@octokit/fixtures/scenarios/api.github.com/${scenario}/normalized-fixture.json`,
    import.meta.url,
  );
  return JSON.parse(readFileSync(url, "utf8")) as Recorded[];
}

/** Paths where the sandbox's value differs in type from the recording. */
function mismatches(recorded: unknown, ours: unknown, path = "$"): string[] {
  if (recorded === null || ours === null) return [];
  if (Array.isArray(recorded)) {
    if (!Array.isArray(ours)) return [`${path}: expected an array`];
    if (recorded.length !== ours.length)
      return [`${path}: ${ours.length} items, recorded ${recorded.length}`];
    return recorded.flatMap((r, i) => mismatches(r, ours[i], `${path}[${i}]`));
  }
  if (typeof recorded !== "object") {
    return typeof recorded === typeof ours
      ? []
      : [`${path}: ${typeof ours}, recorded ${typeof recorded}`];
  }
  if (typeof ours !== "object" || Array.isArray(ours)) return [`${path}: expected an object`];
  return Object.entries(recorded).flatMap(([k, v]) =>
    k in ours
      ? mismatches(v, (ours as Record<string, unknown>)[k], `${path}.${k}`)
      : [`${path}.${k}: missing`],
  );
}

const STABLE = [
  "number",
  "title",
  "state",
  "name",
  "color",
  "default",
  "description",
  "message",
  "errors",
  "locked",
];

/** The values that do not depend on ids, dates or hosts. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => STABLE.includes(k) || k === "labels")
      .map(([k, v]) => [k, stable(v)]),
  );
}

const rels = (link: string | null | undefined): string[] =>
  [...(link ?? "").matchAll(/rel="(\w+)"/g)].map((m) => m[1] ?? "").sort();

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.sandbox.close();
});

/** Replays a scenario; returns every difference found (empty when the sandbox conforms). */
async function replay(scenario: string, seed?: (h: Harness) => Promise<void>): Promise<string[]> {
  const h = await startHarness({
    owner: OWNER,
    repo: scenario,
    users: [USER, "octokit-fixture-user-b"],
  });
  open.push(h);
  if (seed) await seed(h);
  const problems: string[] = [];
  for (const rec of load(scenario)) {
    const accept = String(rec.reqheaders.accept ?? "application/vnd.github.v3+json");
    const res = await h.call(rec.method.toUpperCase(), rec.path, {
      headers: { accept },
      ...(rec.body === "" || rec.body === undefined ? {} : { body: rec.body }),
    });
    const what = `${rec.method.toUpperCase()} ${rec.path}`;
    const check = (ok: boolean, message: string): void => {
      if (!ok) problems.push(`${what}: ${message}`);
    };
    check(res.status === rec.status, `status ${res.status}, recorded ${rec.status}`);
    const text = await res.text();
    if (rec.response === "") {
      check(text === "", "expected an empty body");
      continue;
    }
    check(res.headers.get("content-type") === "application/json; charset=utf-8", "content-type");
    const body = JSON.parse(text) as unknown;
    problems.push(...mismatches(rec.response, body).map((m) => `${what}: ${m}`));
    const [ours, recorded] = [JSON.stringify(stable(body)), JSON.stringify(stable(rec.response))];
    check(ours === recorded, `values ${ours}, recorded ${recorded}`);
    compareHeaders(h, rec, res, check);
  }
  return problems;
}

function compareHeaders(
  h: Harness,
  rec: Recorded,
  res: Response,
  check: (ok: boolean, message: string) => void,
): void {
  const swap = (v: string | null): string | undefined =>
    v?.replaceAll(h.sandbox.url, "https://api.github.com");
  const recordedLink = rec.headers.link as string | undefined;
  const ourRels = rels(res.headers.get("link")).join(",");
  check(ourRels === rels(recordedLink).join(","), `link rels ${ourRels}`);
  if (recordedLink !== undefined) {
    check(swap(res.headers.get("link")) === recordedLink, `link ${res.headers.get("link")}`);
  }
  for (const name of ["etag", "location", "last-modified"]) {
    check(res.headers.has(name) === name in rec.headers, `header ${name} presence`);
  }
  if (typeof rec.headers.location === "string") {
    check(swap(res.headers.get("location")) === rec.headers.location, "location");
  }
  for (const name of ["limit", "remaining", "used", "reset"]) {
    check(/^\d+$/.test(res.headers.get(`x-ratelimit-${name}`) ?? ""), `x-ratelimit-${name}`);
  }
  const resource = res.headers.get("x-ratelimit-resource");
  check(resource === rec.headers["x-ratelimit-resource"], `x-ratelimit-resource ${resource}`);
}

describe("recorded GitHub scenarios (@octokit/fixtures) replayed against the sandbox", () => {
  it("paginate-issues: 13 issues, per_page=3, /repositories/{id} links", async () => {
    const problems = await replay("paginate-issues", async (h) => {
      for (let i = 1; i <= 13; i++) {
        await h.octokit.issues.create({
          owner: OWNER,
          repo: "paginate-issues",
          title: `Test issue ${i}`,
        });
      }
      // The recording shows 42 comments on every issue (a normalised count): the type is what matters.
    });
    expect(problems).toEqual([]);
  });

  it("add-labels-to-issue: 201 + location, labels created on the fly with their case kept", async () => {
    expect(await replay("add-labels-to-issue")).toEqual([]);
  });

  it("labels: list the defaults, create (201), get, rename (PATCH new_name), delete (204)", async () => {
    expect(await replay("labels")).toEqual([]);
  });

  it("errors: 422 Validation Failed with field errors", async () => {
    expect(await replay("errors")).toEqual([]);
  });

  it("lock-issue: lock and unlock answer 204 without a body", async () => {
    const problems = await replay("lock-issue", async (h) => {
      await h.octokit.issues.create({ owner: OWNER, repo: "lock-issue", title: "Lock me" });
    });
    expect(problems).toEqual([]);
  });

  it("search-issues: free text plus repo: on the search bucket", async () => {
    const problems = await replay("search-issues", async (h) => {
      const repo = { owner: OWNER, repo: "search-issues" };
      await h.octokit.issues.create({
        ...repo,
        title: "The doors don’t open",
        body: 'I tried "open sesame" as seen on Wikipedia but no luck!',
      });
      await h.octokit.issues.create({
        ...repo,
        title: "Sesame seeds split without a pop!",
        body: "I’ve waited all year long, but there was no pop 😭",
      });
      await h.octokit.issues.create({ ...repo, title: "Unrelated", body: "nothing here" });
    });
    expect(problems).toEqual([]);
  });
});
