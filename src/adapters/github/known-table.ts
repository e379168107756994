import { grown, InlineStrings, Slots } from "../../core/slot-table.js";
import type { KnownVersion, KnownVersions } from "./context.js";

/** Digest characters a slot holds inline (`issueDigest` gives 42). */
const WIDTH = 48;
const FIRST = 1024;

/**
 * The issue versions a run knows (known-versions.ts), in columns (core/slot-table.ts): a
 * migration knows every issue it wrote until its last write is listed, and a
 * `{ at, comments, digest }` with its own 42-character string and boxed timestamp took about
 * 210 bytes an issue — 10 MB at 50,000 issues, held to the end of the run, where its peak is.
 * Here an issue takes its number's slot in one map and 65 bytes of columns.
 */
export class KnownTable implements KnownVersions {
  readonly #slots = new Slots<number>(FIRST, (size) => {
    this.#at = grown(this.#at, new Float64Array(size));
    this.#comments = grown(this.#comments, new Float64Array(size));
    this.#digests.grow(size);
  });
  #at = new Float64Array(FIRST);
  #comments = new Float64Array(FIRST);
  readonly #digests = new InlineStrings(WIDTH, FIRST);

  get size(): number {
    return this.#slots.size;
  }

  has(issue: number): boolean {
    return this.#slots.has(issue);
  }

  get(issue: number): KnownVersion | undefined {
    const slot = this.#slots.slotOf(issue);
    if (slot === undefined) return undefined;
    return {
      at: this.#at[slot] ?? Number.NaN,
      comments: this.#comments[slot] ?? 0,
      digest: this.#digests.get(slot),
    };
  }

  set(issue: number, version: KnownVersion): this {
    const slot = this.#slots.take(issue);
    this.#at[slot] = version.at;
    this.#comments[slot] = version.comments;
    this.#digests.set(slot, version.digest);
    return this;
  }

  delete(issue: number): boolean {
    const slot = this.#slots.delete(issue);
    if (slot === undefined) return false;
    this.#digests.delete(slot);
    return true;
  }
}
