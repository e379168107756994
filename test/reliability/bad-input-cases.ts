import { MAPPING, type CliWorld } from "./cli-world.js";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** One refused input: how to set it up, the command, and the refusal expected. */
export interface BadCase {
  readonly name: string;
  /** Prepares the input; returns the command's arguments. */
  readonly setup: (w: CliWorld) => string[] | Promise<string[]>;
  readonly env?: (w: CliWorld) => Record<string, string>;
  readonly teardown?: (w: CliWorld) => void;
  readonly exit: number;
  readonly code: string;
  readonly message: RegExp;
  /**
   * One item's own document is bad (issue 31): the item is parked with the error, in the report,
   * and the run goes on (exit 4) — nothing written, links and checkpoints as they were.
   */
  readonly perItem?: boolean;
}

const cfgName = (name: string): string => `${name.replace(/[^a-z0-9]+/gi, "-")}.json`;

/** A hostile tinyPM answer on `route` for a migrate or a sync of the GitHub job. */
function hostile(
  name: string,
  route: RegExp,
  body: string | Buffer,
  message: RegExp,
  command: "migrate" | "sync" = "migrate",
  job = "gh",
): BadCase {
  return {
    name: `${command} ${job}: ${name}`,
    setup: (w) => {
      w.proxy.set({ route, body });
      return [command, "--config", w.config(undefined, cfgName(name)), "--job", job];
    },
    teardown: (w) => {
      w.proxy.set(undefined);
    },
    // A story's own document (not a listing): that story is parked, the run goes on.
    ...(route === ONE_STORY ? { exit: 4, perItem: true } : { exit: 3 }),
    code: "payload_invalid",
    message,
  };
}

const STORY = (inner: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><userStories><userStory><id>1</id><name>x</name>${inner}</userStory></userStories>`;
const LAUGHS =
  '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><userStories>&lol3;</userStories>';
const XXE =
  '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><userStories><userStory><name>&xxe;</name></userStory></userStories>';
const DEEP = `<userStories>${"<a>".repeat(200)}${"</a>".repeat(200)}</userStories>`;
const HUGE = `<userStories>${"<userStory><name>x</name></userStory>".repeat(500_000)}</userStories>`;
const BAD_UTF8 = Buffer.concat([
  Buffer.from('<?xml version="1.0" encoding="UTF-8"?><userStories><userStory><name>'),
  Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
  Buffer.from("</name></userStory></userStories>"),
]);

const STORIES = /\/project\/1\/userstories/;
const ONE_STORY = /\/userstory\/\d+(\?.*)?$/;

function hostileCases(): BadCase[] {
  const kinds: [string, RegExp, string | Buffer, RegExp][] = [
    ["malformed XML", STORIES, "<userStories><userStory>", /malformed XML/],
    [
      "truncated XML",
      ONE_STORY,
      '<?xml version="1.0"?><userStory><id>1</id><na',
      /malformed XML|refused document|truncated/i,
    ],
    ["a DOCTYPE", STORIES, '<?xml version="1.0"?><!DOCTYPE userStories><userStories/>', /DOCTYPE/],
    ["billion laughs", STORIES, LAUGHS, /DOCTYPE|entity/i],
    ["an external entity", STORIES, XXE, /DOCTYPE|entity/i],
    ["deep nesting", STORIES, DEEP, /nest|depth|deep/i],
    ["a huge body", STORIES, HUGE, /large|bytes|size|limit/i],
    ["invalid UTF-8", ONE_STORY, BAD_UTF8, /UTF-8|encoding|invalid/i],
    [
      "an unknown status",
      ONE_STORY,
      STORY("<status>FROBNICATED</status>"),
      /status|FROBNICATED|unexpected|invalid/i,
    ],
    [
      "a bad date",
      ONE_STORY,
      STORY("<creationDate>31/31/2020</creationDate>"),
      /date|invalid|unexpected/i,
    ],
    [
      "a bad number",
      ONE_STORY,
      STORY("<estimatedEffort>lots</estimatedEffort>"),
      /number|estimat|invalid|unexpected/i,
    ],
  ];
  return kinds.flatMap(([name, route, body, message]) => [
    hostile(name, route, body, message, "migrate", "gh"),
    hostile(name, route, body, message, "sync", "jr"),
  ]);
}

function withJob(w: CliWorld, name: string, edit: (job: Record<string, unknown>) => void): string {
  return w.config((c) => {
    const job = (c.jobs as Record<string, unknown>[])[0];
    if (job !== undefined) edit(job);
  }, cfgName(name));
}

function mappingWith(w: CliWorld, name: string, edit: (yaml: string) => string): string {
  const path = join(w.dir, `${cfgName(name)}.yaml`);
  writeFileSync(path, edit(readFileSync(MAPPING.github, "utf8")));
  return withJob(w, name, (j) => {
    j.mapping = path;
  });
}

function configCases(): BadCase[] {
  const invalid = (name: string, edit: (c: Record<string, unknown>) => void, message: RegExp) =>
    ({
      name: `config: ${name}`,
      setup: (w) => ["migrate", "--config", w.config(edit, cfgName(name)), "--job", "gh"],
      exit: 2,
      code: "config_invalid",
      message,
    }) satisfies BadCase;
  return [
    invalid("an unknown key", (c) => (c.frobnicate = true), /unknown key "frobnicate"/),
    invalid(
      "a wrong type",
      (c) => ((c.tinypm as Record<string, unknown>).timeoutMs = "soon"),
      /timeoutMs/,
    ),
    invalid(
      "a bad URL",
      (c) => ((c.tinypm as Record<string, unknown>).baseUrl = "not a url"),
      /baseUrl/,
    ),
    invalid(
      "an unknown job key",
      (c) => ((c.jobs as Record<string, unknown>[])[0]!.colour = 1),
      /colour/,
    ),
    invalid(
      "an unknown direction",
      (c) => ((c.jobs as Record<string, unknown>[])[0]!.direction = "sideways"),
      /direction/,
    ),
    invalid(
      "an unknown target",
      (c) => ((c.jobs as Record<string, unknown>[])[0]!.target = "gitlab"),
      /gitlab|target/,
    ),
    {
      name: "config: not JSON",
      setup: (w) => {
        const path = join(w.dir, "broken.json");
        writeFileSync(path, '{ "tinypm": ');
        return ["migrate", "--config", path, "--job", "gh"];
      },
      exit: 2,
      code: "config_invalid",
      message: /JSON|parse/i,
    },
    {
      name: "config: a missing secret",
      setup: (w) => ["migrate", "--config", w.config(undefined, "nosecret.json"), "--job", "gh"],
      env: (w) => ({ ...w.env, TINYPM_TOKEN: "" }),
      exit: 2,
      code: "config_invalid",
      message: /TINYPM_TOKEN/,
    },
    {
      name: "config: an unknown job",
      setup: (w) => ["migrate", "--config", w.config(undefined, "nojob.json"), "--job", "nope"],
      exit: 2,
      // A mistyped job name is the command line's mistake, not the config file's: it names the
      // jobs the file has.
      code: "usage",
      message: /no job `nope`; jobs in .*nojob\.json: gh/,
    },
    {
      name: "mapping: an unknown field",
      setup: (w) => [
        "migrate",
        "--config",
        mappingWith(w, "map-field", (y) => `${y}\nfrobnicate: 1\n`),
        "--job",
        "gh",
      ],
      exit: 2,
      code: "mapping_invalid",
      message: /frobnicate/,
    },
    {
      name: "mapping: an unknown transform",
      setup: (w) => [
        "migrate",
        "--config",
        mappingWith(w, "map-transform", (y) => y.replace("[neutralize-mentions]", "[frobnicate]")),
        "--job",
        "gh",
      ],
      exit: 2,
      code: "mapping_invalid",
      message: /frobnicate|transform/,
    },
    {
      name: "mapping: a missing file",
      setup: (w) => [
        "migrate",
        "--config",
        withJob(w, "map-missing", (j) => (j.mapping = join(w.dir, "nope.yaml"))),
        "--job",
        "gh",
      ],
      exit: 2,
      code: "mapping_invalid",
      message: /nope\.yaml/,
    },
  ];
}

function remoteCases(): BadCase[] {
  const token = (
    name: string,
    variable: string,
    value: string,
    job: string,
    message: RegExp,
  ): BadCase => ({
    name: `token: ${name}`,
    setup: (w) => ["sync", "--config", w.config(undefined, cfgName(name)), "--job", job],
    env: (w) => ({ ...w.env, [variable]: value }),
    exit: 3,
    code: "auth_failed",
    message,
  });
  return [
    token("wrong tinyPM token", "TINYPM_TOKEN", "tok-wrong-0000", "gh", /tinyPM|token/i),
    token(
      "wrong GitHub token",
      "GITHUB_TOKEN",
      "ghp_wrongwrongwrongwrongwrongwrongwron1",
      "gh",
      /GITHUB_TOKEN/,
    ),
    token(
      "expired GitHub token",
      "GITHUB_TOKEN",
      "ghp_expiredexpiredexpiredexpiredexpir1",
      "gh",
      /expir|GITHUB_TOKEN/,
    ),
    token("wrong Jira token", "JIRA_TOKEN", "tok-wrong-jira", "jr", /JIRA/),
    token("wrong Jira email", "JIRA_EMAIL", "nobody@example.com", "jr", /JIRA/),
    {
      name: "a tinyPM project that does not exist",
      setup: (w) => [
        "migrate",
        "--config",
        withJob(w, "noproject", (j) => (j.tinypmProject = 999)),
        "--job",
        "gh",
      ],
      exit: 3,
      code: "not_found",
      message: /999|project/i,
    },
    {
      name: "a GitHub repository that does not exist",
      setup: (w) => [
        "migrate",
        "--config",
        w.config((c) => {
          (c.targets as Record<string, Record<string, unknown>>).github!.repo = "nope";
        }, "norepo.json"),
        "--job",
        "gh",
      ],
      exit: 3,
      code: "not_found",
      message: /nope|repo/i,
    },
    {
      name: "a Jira project that does not exist",
      setup: (w) => [
        "migrate",
        "--config",
        w.config((c) => {
          (c.targets as Record<string, Record<string, unknown>>).jira!.project = "NOPE";
        }, "nojira.json"),
        "--job",
        "jr",
      ],
      exit: 3,
      code: "payload_invalid",
      message: /'NOPE' does not exist for the field 'project'/,
    },
    {
      name: "an unknown conflict id",
      setup: (w) => [
        "conflicts",
        "resolve",
        "999999",
        "--take",
        "tinypm",
        "--config",
        w.config(undefined, "conflict.json"),
      ],
      exit: 2,
      code: "usage",
      message: /999999/,
    },
  ];
}

export function badCases(): BadCase[] {
  return [...hostileCases(), ...configCases(), ...remoteCases()];
}
