import { afterEach, describe, expect, it } from "vitest";
import { openPgPoolCount, usePgPool, type PoolUse } from "./pg-pools.js";

// The registry alone: pools are created without connecting, so no server is needed here (the
// connections themselves: test/contract/state-postgres-pool.test.ts).
const URL_A = "postgres://u:pw@127.0.0.1:1/a";
const URL_B = "postgres://u:pw@127.0.0.1:1/b";

const uses: PoolUse[] = [];
const use = (url: string, readOnly: boolean): PoolUse => {
  const u = usePgPool(url, readOnly);
  uses.push(u);
  return u;
};

afterEach(async () => {
  await Promise.all(uses.splice(0).map((u) => u.release()));
});

describe("usePgPool", () => {
  it("gives every use of one database and mode the same pool, and ends it with the last release", async () => {
    const first = use(URL_A, false);
    const second = use(URL_A, false);
    expect(second.pool).toBe(first.pool);
    expect(use(URL_A, true).pool).not.toBe(first.pool);
    expect(use(URL_B, false).pool).not.toBe(first.pool);
    expect(openPgPoolCount()).toBe(3);
    await first.release();
    await first.release(); // idempotent: the second use still holds the pool
    expect(openPgPoolCount()).toBe(3);
    await second.release();
    expect(openPgPoolCount()).toBe(2);
    // A use after the pool ended gets a new one.
    const later = use(URL_A, false);
    expect(later.pool).not.toBe(first.pool);
  });

  it("remembers a checked schema per database while any of its pools is open", async () => {
    const writer = use(URL_A, false);
    const reader = use(URL_A, true);
    expect(writer.schemaKnown()).toBe(false);
    writer.schemaChecked();
    expect(reader.schemaKnown()).toBe(true);
    expect(use(URL_B, true).schemaKnown()).toBe(false);
    reader.schemaDoubted();
    expect(writer.schemaKnown()).toBe(false);
    writer.schemaChecked();
    await writer.release();
    expect(reader.schemaKnown()).toBe(true);
    await reader.release();
    // Both pools of the database ended: the next store checks the schema again.
    expect(use(URL_A, false).schemaKnown()).toBe(false);
  });
});
