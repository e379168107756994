import { grown, InlineStrings, Slots } from "../../core/slot-table.js";
import type { KnownVersion, KnownVersions } from "./known-versions.js";

/** Hash characters a slot holds inline (`valueHash` gives 16). */
const WIDTH = 24;
const FIRST = 1024;
/** Between an `added` list's ids and hashes, where none of them holds it. */
const SEPARATOR = "\u0000";

/**
 * The issue versions a run knows (known-versions.ts), in columns (core/slot-table.ts): a
 * migration knows every issue it wrote, and the comments and worklogs it added to each, until its
 * last write is listed. As objects (`{ hash, at, added }`, the hash a string of its own, `at` a
 * boxed number, `added` an array of id and hash strings) that was about 0.58 KB an issue — 29 MB
 * at 50,000 issues, held to the end of the run, where Jira's peak is. Here an issue takes its
 * key's slot in one map, 33 bytes of columns, and its `added` list as one string.
 */
export class KnownTable implements KnownVersions {
  readonly #slots = new Slots<string>(FIRST, (size) => {
    this.#at = grown(this.#at, new Float64Array(size));
    this.#hashes.grow(size);
  });
  #at = new Float64Array(FIRST);
  readonly #hashes = new InlineStrings(WIDTH, FIRST);
  /** Each slot's `added` list, joined by SEPARATOR, or as given when an entry holds it. */
  readonly #added: (string | readonly string[] | undefined)[] = [];

  get size(): number {
    return this.#slots.size;
  }

  has(key: string): boolean {
    return this.#slots.has(key);
  }

  get(key: string): KnownVersion | undefined {
    const slot = this.#slots.slotOf(key);
    if (slot === undefined) return undefined;
    const hash = this.#hashes.get(slot);
    const at = this.#at[slot] ?? Number.NaN;
    const added = this.#added[slot];
    if (added === undefined) return { hash, at };
    return { hash, at, added: typeof added === "string" ? added.split(SEPARATOR) : added };
  }

  set(key: string, version: KnownVersion): this {
    const slot = this.#slots.take(key);
    this.#at[slot] = version.at;
    this.#hashes.set(slot, version.hash);
    const { added } = version;
    this.#added[slot] =
      added === undefined || added.length === 0
        ? undefined
        : added.some((part) => part.includes(SEPARATOR))
          ? [...added]
          : added.join(SEPARATOR);
    return this;
  }

  keys(): IterableIterator<string> {
    return this.#slots.keys();
  }

  clear(): void {
    this.#slots.clear();
    this.#hashes.clear();
    this.#added.length = 0;
  }

  delete(key: string): boolean {
    const slot = this.#slots.delete(key);
    if (slot === undefined) return false;
    this.#hashes.delete(slot);
    this.#added[slot] = undefined;
    return true;
  }
}
