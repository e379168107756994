import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The seam between the engine's retrying lanes and the adapters' HTTP code for reads made of many
 * requests (a project scan, a change feed): the lane that runs such a read installs a runner, and
 * each adapter passes every idempotent request through `remoteRead`, so that a failure is retried
 * request by request rather than by starting the whole read again. Outside a lane (a plain
 * library call) a request simply runs once.
 */
export type RemoteReadRunner = <T>(name: string, read: () => Promise<T>) => Promise<T>;

const scope = new AsyncLocalStorage<RemoteReadRunner>();

/** Runs `fn` with `runner` handling every `remoteRead` made within it (across awaits). */
export function withRemoteReads<T>(runner: RemoteReadRunner, fn: () => Promise<T>): Promise<T> {
  return scope.run(runner, fn);
}

/** Runs `fn` with no runner: its requests run once each (the caller retries `fn` as a whole). */
export function withoutRemoteReads<T>(fn: () => Promise<T>): Promise<T> {
  return scope.exit(fn);
}

/**
 * One idempotent remote request (`name` e.g. `GET story 12`), through the current runner if any.
 * The request itself runs outside the runner's scope, so a request never nests in another.
 */
export function remoteRead<T>(name: string, read: () => Promise<T>): Promise<T> {
  const runner = scope.getStore();
  return runner === undefined ? read() : runner(name, () => scope.exit(read));
}
