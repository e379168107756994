import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteState } from "../../state/sqlite-state.js";
import type { LinkRecord, StateStore } from "../../state/store.js";
import { BaselessLink, linkView } from "../plan/links.js";
import { basesReader, linkKey } from "./bases-reader.js";

let dir: string;
let state: StateStore;
const LINKS = 2_500;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "bases-reader-"));
  state = await openSqliteState({ path: join(dir, "state.db") });
  await state.transaction(async (tx) => {
    for (let i = 1; i <= LINKS; i++) await tx.putLink(link(String(i)));
  });
});
afterEach(async () => {
  await state.close();
  rmSync(dir, { recursive: true, force: true });
});

function link(tinypmId: string): LinkRecord {
  return {
    job: "w",
    kind: "story",
    tinypmId,
    targetSystem: "github",
    targetId: `gh-${tinypmId}`,
    origin: "tinypm",
    base: { tinypm: `{"title":"${tinypmId}"}`, target: "{}", tinypmHash: "a", targetHash: "b" },
    updatedAt: "2026-11-24T12:00:00.000Z",
  };
}

async function reader(): Promise<ReturnType<typeof basesReader>> {
  const links: BaselessLink[] = [];
  for await (const l of state.links("w")) links.push(new BaselessLink(l));
  return basesReader(state, "w", links, new Map(links.map((l) => [linkKey(l), l])));
}

const based = (views: readonly { tinypmId: string }[]): string[] =>
  views.filter((l) => !(l instanceof BaselessLink)).map((l) => l.tinypmId);

describe("basesReader", () => {
  it("gives the bases of a few pairs asked for, and no others", async () => {
    const withBases = await reader();
    const views = await withBases(["story:3", "story:7", "story:nope"]);
    expect(views).toHaveLength(LINKS);
    expect(based(views).sort()).toEqual(["3", "7"]);
  });

  it("keeps only the bases asked for when it reads them in one pass", async () => {
    const withBases = await reader();
    const asked = Array.from({ length: 2_100 }, (_, i) => `story:${String(i + 1)}`);
    const views = await withBases(asked);
    expect(based(views)).toHaveLength(2_100);
    expect(views.find((l) => l.tinypmId === "2101")).toBeInstanceOf(BaselessLink);
    expect(views.find((l) => l.tinypmId === "5")).toMatchObject({
      baseTinypm: linkView(link("5")).baseTinypm,
    });
    // A later call adds the bases it asks for to those read before.
    expect(based(await withBases(["story:2400"]))).toHaveLength(2_101);
  });
});
