import { createFaultInjector, parseFaultSpec, type FaultRule } from "../server-kit/faults.js";
import { startHttpServer } from "../server-kit/http.js";
import { createStats, type ServerStats } from "../server-kit/stats.js";
import { randomToken } from "../server-kit/tokens.js";
import { loadDatasetFile, validateDataset } from "./dataset.js";
import { generateDataset, parseGenerateSpec, type GenerateSpec } from "./generate.js";
import { createRequestHandler, type ServerState } from "./handler.js";
import type { ApiVersion, Dataset } from "./model.js";
import { ReferenceStore } from "./store.js";

export { DatasetError, validateDataset, loadDatasetFile } from "./dataset.js";
export { parseGenerateSpec, generateDataset, PRESETS, type GenerateSpec } from "./generate.js";
export type * from "./model.js";
export { ReferenceStore } from "./store.js";

export interface ReferenceServerOptions {
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  /** The API token; a random 32-hex token when absent. */
  readonly token?: string | undefined;
  /** A preset (`empty`, `small`, `medium`, `large`) or `stories=N,tasks=M,comments=K`. */
  readonly generate?: string | GenerateSpec | undefined;
  readonly seed?: number | undefined;
  /** A dataset object or the path of a dataset JSON file (wins over `generate`). */
  readonly dataset?: object | string | undefined;
  readonly apiVersion?: ApiVersion | undefined;
  /**
   * Story and task listings send complete elements (the detail form) rather than the documented
   * summaries, as some real servers may: clients must detect it, not assume it. @default false
   */
  readonly completeLists?: boolean | undefined;
  /** A fault spec (grammar in src/server-kit/faults.ts) or parsed rules. */
  readonly faults?: string | readonly FaultRule[] | undefined;
  readonly apiDisabled?: boolean | undefined;
  /** Request body limit in bytes (default 1 MiB). */
  readonly maxBodyBytes?: number | undefined;
  /** The clock deciding the current iteration, generated dates and comment dates. */
  readonly today?: (() => Date) | undefined;
  readonly pathPrefix?: string | undefined;
}

export interface ReferenceServer {
  /** The API base URL, e.g. `http://127.0.0.1:41233/tinypm/api`. */
  readonly url: string;
  /** `http://host:port`, where `/_sandbox/stats` and `/_sandbox/reset` live. */
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  readonly apiVersion: ApiVersion;
  /** The live store (replaced by `reset`), for assertions. */
  readonly store: ReferenceStore;
  stats(): ServerStats;
  /** Restores the generated or loaded data and clears the stats. */
  reset(): void;
  setFaults(spec: string | readonly FaultRule[]): void;
  close(): Promise<void>;
}

/** The dataset an options object describes (dataset file or object, else the generator). */
function datasetFor(options: ReferenceServerOptions, today: Date): Dataset {
  if (typeof options.dataset === "string") return loadDatasetFile(options.dataset);
  if (options.dataset !== undefined) return validateDataset(options.dataset);
  const g = options.generate ?? "small";
  const spec = typeof g === "string" ? parseGenerateSpec(g) : g;
  return generateDataset(spec, options.seed ?? 1, today);
}

/** Fault rules whose route starts with the API prefix are matched without it. */
function faultRules(spec: string | readonly FaultRule[], prefix: string): FaultRule[] {
  const rules = typeof spec === "string" ? parseFaultSpec(spec) : [...spec];
  return rules.map((r) =>
    r.route?.startsWith(`${prefix}/`) === true ? { ...r, route: r.route.slice(prefix.length) } : r,
  );
}

export async function startReferenceServer(
  options: ReferenceServerOptions = {},
): Promise<ReferenceServer> {
  const today = options.today ?? (() => new Date());
  const prefix = (options.pathPrefix ?? "/tinypm/api").replace(/\/+$/, "");
  const data = datasetFor(options, today());
  const faults = createFaultInjector(faultRules(options.faults ?? [], prefix), options.seed ?? 1);
  const stats = createStats();
  const state: ServerState = {
    store: new ReferenceStore(data),
    baseUrl: "",
    version: options.apiVersion ?? "2.6",
    completeLists: options.completeLists ?? false,
    prefix,
    token: options.token ?? randomToken(),
    apiDisabled: options.apiDisabled ?? false,
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    today,
    faults,
    stats,
    reset() {
      state.store = new ReferenceStore(data);
      stats.reset();
    },
  };
  const running = await startHttpServer({
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 0,
    handler: createRequestHandler(state),
  });
  state.baseUrl = `${running.origin}${prefix}`;
  return {
    url: state.baseUrl,
    origin: running.origin,
    port: running.port,
    token: state.token,
    apiVersion: state.version,
    get store() {
      return state.store;
    },
    stats: () => stats.snapshot(),
    reset: () => {
      state.reset();
    },
    setFaults: (spec) => {
      faults.setRules(faultRules(spec, prefix));
    },
    close: () => running.close(),
  };
}
