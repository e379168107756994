import { startReferenceServer } from "../../../src/reference-server/index.js";
import { createTinypmTracker, type TinypmTracker } from "../../../src/adapters/tinypm/index.js";
import { startProxy, type TestProxy } from "./proxy.js";

export interface TinypmFixture {
  readonly tracker: TinypmTracker;
  readonly proxy: TestProxy;
  readonly server: Awaited<ReturnType<typeof startReferenceServer>>;
  close(): Promise<void>;
}

/** Reference server (given version and data) → proxy → adapter, all on 127.0.0.1 port 0. */
export async function startTinypm(opts: {
  apiVersion: "2.6" | "2.5";
  generate?: string;
  apiDisabled?: boolean;
  token?: string;
  trackerToken?: string;
  maxResponseBytes?: number;
  concurrency?: number;
  completeLists?: boolean;
  seed?: number;
}): Promise<TinypmFixture> {
  const server = await startReferenceServer({
    apiVersion: opts.apiVersion,
    generate: opts.generate ?? "small",
    seed: opts.seed ?? 7,
    ...(opts.completeLists !== undefined && { completeLists: opts.completeLists }),
    ...(opts.apiDisabled !== undefined && { apiDisabled: opts.apiDisabled }),
    ...(opts.token !== undefined && { token: opts.token }),
  });
  const proxy = await startProxy(server.url);
  const tracker = createTinypmTracker({
    baseUrl: proxy.url,
    token: opts.trackerToken ?? server.token,
    projectId: 1,
    timeoutMs: 10_000,
    ...(opts.maxResponseBytes !== undefined && { maxResponseBytes: opts.maxResponseBytes }),
    ...(opts.concurrency !== undefined && { concurrency: opts.concurrency }),
  });
  return {
    tracker,
    proxy,
    server,
    async close() {
      await tracker.close();
      await proxy.close();
      await server.close();
    },
  };
}
