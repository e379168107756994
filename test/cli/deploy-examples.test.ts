import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { buildProgram } from "../../src/cli/program.js";
import type { CliContext } from "../../src/cli/context.js";
import { ConfigSchema } from "../../src/config/schema.js";

// The deployment examples on PostgreSQL (docs/scheduling.md): parsed as the YAML they are, and
// every command, flag, config key and variable they use checked against the code.
const root = new URL("../../", import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), "utf8");

async function buildTestProgram(): Promise<Command> {
  const sink = { write: () => true } as unknown as CliContext["stdout"];
  return buildProgram({
    stdout: sink,
    stderr: sink,
    env: {},
    cwd: ".",
    signal: new AbortController().signal,
    waitForStop: () => new Promise(() => undefined),
    exitCode: 0,
  });
}

/** Built once (with every command loaded) and only read by the checks below. */
const built = await buildTestProgram();
const program = (): Command => built;

/** Checks `args` (`[command, ...words]`) name a real command and only its real flags. */
function expectRealInvocation(args: readonly string[]): void {
  const [name, ...rest] = args;
  const cmd = program().commands.find((c) => c.name() === name);
  expect(cmd, `tinypm-sync ${args.join(" ")}`).toBeDefined();
  const flags = new Set(cmd?.options.flatMap((o) => [o.long, o.short]));
  for (const word of rest.filter((w) => w.startsWith("-")))
    expect(flags.has(word), `${word} of tinypm-sync ${name}`).toBe(true);
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  command: string[];
  args: string[];
  env: EnvVar[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: { httpGet: { path: string; port: string } };
  readinessProbe?: { httpGet: { path: string; port: string } };
}
interface PodSpec {
  containers: Container[];
  volumes: { configMap?: { name: string } }[];
}
type Manifest =
  | { kind: "ConfigMap"; metadata: { name: string }; data: Record<string, string> }
  | {
      kind: "CronJob";
      spec: { schedule: string; jobTemplate: { spec: { template: { spec: PodSpec } } } };
    }
  | {
      kind: "Deployment";
      spec: {
        replicas: number;
        selector: { matchLabels: Record<string, string> };
        template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
      };
    }
  | {
      kind: "Service";
      spec: { selector: Record<string, string>; ports: { targetPort: string }[] };
    };

function manifests(): Manifest[] {
  return parseAllDocuments(read("docs/examples/kubernetes.yml")).map((d) => {
    expect(d.errors).toEqual([]);
    return d.toJS() as Manifest;
  });
}

function only<K extends Manifest["kind"]>(
  all: Manifest[],
  kind: K,
): Extract<Manifest, { kind: K }> {
  const found = all.filter((m) => m.kind === kind);
  expect(found, `${kind} manifests`).toHaveLength(1);
  return found[0] as Extract<Manifest, { kind: K }>;
}

/** Every environment variable name the config reads (`…Env` keys). */
function envNames(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(envNames);
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k.endsWith("Env") && typeof v === "string" ? [v] : envNames(v),
  );
}

describe("deployment examples on a PostgreSQL state", () => {
  it("the GitHub Actions workflow runs a scheduled sync with the state URL from a secret, no cache", () => {
    const text = read("docs/examples/github-actions-postgres.yml");
    const wf = parse(text) as {
      on: { schedule: { cron: string }[] };
      jobs: { sync: { steps: { run?: string; uses?: string; env?: Record<string, string> }[] } };
    };
    expect(wf.on.schedule[0]?.cron).toMatch(/^(\S+ ){4}\S+$/);
    const steps = wf.jobs.sync.steps;
    const sync = steps.find((s) => s.run?.includes("tinypm-sync sync"));
    expect(sync).toBeDefined();
    const words = (sync?.run ?? "").split(/\s+/);
    expectRealInvocation(words.slice(words.indexOf("tinypm-sync") + 1));
    expect(sync?.env?.TINYPM_SYNC_STATE_URL).toBe("${{ secrets.TINYPM_SYNC_STATE_URL }}");
    expect(steps.some((s) => s.uses?.startsWith("actions/cache"))).toBe(false);
  });

  it("the Kubernetes config keeps the state in PostgreSQL by variable, and is a valid config", () => {
    const config = only(manifests(), "ConfigMap").data["config.json"];
    const parsed = ConfigSchema.safeParse(JSON.parse(config ?? "null"));
    expect(parsed.error).toBeUndefined();
    expect(parsed.data?.state).toMatchObject({ urlEnv: "TINYPM_SYNC_STATE_URL" });
    expect(parsed.data?.state.url).toBeUndefined();
    expect(parsed.data?.serve?.auth?.tokenEnv).toBe("TINYPM_SYNC_SERVE_TOKEN");
  });

  it("the CronJob runs sync and the Deployment several serve workers, with every variable the config names", () => {
    const all = manifests();
    const configMap = only(all, "ConfigMap");
    const config = JSON.parse(configMap.data["config.json"] ?? "{}") as unknown;
    const cron = only(all, "CronJob");
    expect(cron.spec.schedule).toMatch(/^(\S+ ){4}\S+$/);
    const deployment = only(all, "Deployment");
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    const pods = [cron.spec.jobTemplate.spec.template.spec, deployment.spec.template.spec];
    for (const [i, pod] of pods.entries()) {
      expect(pod.volumes.map((v) => v.configMap?.name)).toContain(configMap.metadata.name);
      const [c] = pod.containers;
      if (c === undefined) throw new Error("no container");
      expect(c.command).toEqual(["node", "dist/cli/main.js"]);
      expectRealInvocation(c.args);
      expect(c.args[0]).toBe(i === 0 ? "sync" : "serve");
      const env = new Map(c.env.map((e) => [e.name, e]));
      // Secrets only from secrets: no literal values.
      for (const e of c.env)
        expect(e.valueFrom?.secretKeyRef, `${e.name} from a secret`).toBeDefined();
      const needed = envNames(config).filter((n) => i === 1 || n !== "TINYPM_SYNC_SERVE_TOKEN");
      for (const name of needed) expect(env.has(name), `${name} in ${c.args[0]}`).toBe(true);
    }
  });

  it("the serve workers listen beyond loopback on the probed port, behind a Service", () => {
    const all = manifests();
    const deployment = only(all, "Deployment");
    const c = deployment.spec.template.spec.containers[0];
    if (c === undefined) throw new Error("no container");
    const flag = (name: string): string | undefined => c.args[c.args.indexOf(name) + 1];
    expect(flag("--host")).toBe("0.0.0.0");
    const port = c.ports?.find((p) => p.name === "http");
    expect(port?.containerPort).toBe(Number(flag("--port")));
    expect(c.livenessProbe?.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(c.readinessProbe?.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(deployment.spec.template.metadata.labels).toMatchObject(
      deployment.spec.selector.matchLabels,
    );
    const service = only(all, "Service");
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    expect(service.spec.ports[0]?.targetPort).toBe("http");
  });
});
