import { afterEach } from "vitest";

/** Something a test opens: a sandbox, a tracker, a server. */
export interface Closable {
  close(): Promise<void>;
}

/**
 * A list to push what a test opens into: after each test, everything in it is closed, the last
 * opened first (a tracker before the sandbox it talks to). Call it at a test file's top level.
 */
export function closedAfterEach(): Closable[] {
  const opened: Closable[] = [];
  afterEach(async () => {
    for (const x of opened.splice(0).reverse()) await x.close();
  });
  return opened;
}
