import { ensureBuilt } from "./private-build.js";

/**
 * Builds the private CLI once before the first file of a project that spawns it: a build inside
 * a file's `beforeAll` ran against the hook's timeout on a loaded machine.
 */
export function setup(): void {
  ensureBuilt();
}
