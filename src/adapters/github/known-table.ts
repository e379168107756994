import type { KnownVersion, KnownVersions } from "./context.js";

/** Digest characters a slot holds inline (`issueDigest` gives 42). */
const WIDTH = 48;
const FIRST = 1024;

/**
 * The issue versions a run knows (known-versions.ts), in columns rather than an object and a
 * string per issue: a migration knows every issue it wrote until its last write is listed, and
 * a `{ at, comments, digest }` with its own 42-character string and boxed timestamp took about
 * 210 bytes an issue — 10 MB at 50,000 issues, held to the end of the run, where its peak is.
 * Here an issue takes its number's slot in one map and 64 bytes of columns. A digest longer
 * than a slot or not one byte a character (none today) is kept as a string beside them.
 */
export class KnownTable implements KnownVersions {
  readonly #slots = new Map<number, number>();
  readonly #free: number[] = [];
  readonly #long = new Map<number, string>();
  #next = 0;
  #at = new Float64Array(FIRST);
  #comments = new Float64Array(FIRST);
  #length = new Uint8Array(FIRST);
  #digests = Buffer.alloc(FIRST * WIDTH);

  get size(): number {
    return this.#slots.size;
  }

  has(issue: number): boolean {
    return this.#slots.has(issue);
  }

  get(issue: number): KnownVersion | undefined {
    const slot = this.#slots.get(issue);
    if (slot === undefined) return undefined;
    const start = slot * WIDTH;
    const digest =
      this.#long.get(slot) ??
      this.#digests.toString("latin1", start, start + (this.#length[slot] ?? 0));
    return { at: this.#at[slot] ?? NaN, comments: this.#comments[slot] ?? 0, digest };
  }

  set(issue: number, version: KnownVersion): this {
    let slot = this.#slots.get(issue);
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#take();
      this.#slots.set(issue, slot);
    }
    this.#at[slot] = version.at;
    this.#comments[slot] = version.comments;
    const { digest } = version;
    // eslint-disable-next-line no-control-regex -- one byte a character: Latin-1 holds it
    if (digest.length <= WIDTH && /^[\x00-\xff]*$/.test(digest)) {
      this.#long.delete(slot);
      this.#digests.write(digest, slot * WIDTH, "latin1");
      this.#length[slot] = digest.length;
    } else {
      this.#long.set(slot, digest);
    }
    return this;
  }

  delete(issue: number): boolean {
    const slot = this.#slots.get(issue);
    if (slot === undefined) return false;
    this.#slots.delete(issue);
    this.#long.delete(slot);
    this.#free.push(slot);
    return true;
  }

  /** A slot never used, the columns grown when full. */
  #take(): number {
    const slot = this.#next++;
    if (slot < this.#at.length) return slot;
    const size = this.#at.length * 2;
    const grow = <A extends Float64Array | Uint8Array>(old: A, next: A): A => {
      next.set(old);
      return next;
    };
    this.#at = grow(this.#at, new Float64Array(size));
    this.#comments = grow(this.#comments, new Float64Array(size));
    this.#length = grow(this.#length, new Uint8Array(size));
    const digests = Buffer.alloc(size * WIDTH);
    this.#digests.copy(digests);
    this.#digests = digests;
    return slot;
  }
}
