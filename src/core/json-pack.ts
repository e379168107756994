import { deflateRawSync, inflateRawSync } from "node:zlib";

/**
 * Plain data (strings, numbers, booleans, arrays and plain objects, as the canonical model is)
 * kept as compressed JSON, a chunk of values at a time, rather than as objects: what a run must
 * keep of every item until it uses it again — a migration's read until it is planned, its creates'
 * sources until they are sent — takes a few megabytes off the JavaScript heap instead of a
 * kilobyte of objects per item, multiplied by the heap's growth (docs/benchmarks.md).
 *
 * The JSON round trip gives back an equal value (`undefined` members left out, as the model
 * leaves them). Reads in the order of adding decode each chunk once: the last few chunks are kept
 * decoded, so a value read twice in a row is the same object.
 */
export class JsonPack<T> {
  readonly #size: number;
  readonly #keep: number;
  readonly #chunks: Buffer[] = [];
  #open: string[] = [];
  readonly #recent = new Map<number, readonly T[]>();

  /**
   * @param o.chunk values per compressed chunk (default 256): larger compresses better, smaller
   * costs less to decode out of order.
   * @param o.keep decoded chunks kept (default 4).
   */
  constructor(o: { readonly chunk?: number; readonly keep?: number } = {}) {
    this.#size = o.chunk ?? 256;
    this.#keep = o.keep ?? 4;
  }

  /** Packs `value`; the number returned reads it back. */
  add(value: T): number {
    const chunk = this.#chunks.length;
    const slot = chunk * this.#size + this.#open.length;
    this.#open.push(JSON.stringify(value));
    this.#recent.delete(chunk);
    if (this.#open.length === this.#size) {
      this.#chunks.push(deflateRawSync(`[${this.#open.join(",")}]`, { level: 1 }));
      this.#open = [];
    }
    return slot;
  }

  /** The value packed at `slot`. */
  get(slot: number): T {
    const chunk = Math.floor(slot / this.#size);
    const at = slot % this.#size;
    let items = this.#recent.get(chunk);
    if (items === undefined) {
      items = JSON.parse(this.#text(chunk, slot)) as readonly T[];
      const oldest = this.#recent.keys().next();
      if (this.#recent.size >= this.#keep && oldest.done !== true)
        this.#recent.delete(oldest.value);
    } else {
      this.#recent.delete(chunk);
    }
    this.#recent.set(chunk, items);
    const item = items[at];
    if (item === undefined) throw new RangeError(`nothing packed at ${slot}`);
    return item;
  }

  /** The JSON array of chunk `chunk`'s values. */
  #text(chunk: number, slot: number): string {
    if (chunk === this.#chunks.length) return `[${this.#open.join(",")}]`;
    const buffer = this.#chunks[chunk];
    if (buffer === undefined) throw new RangeError(`nothing packed at ${slot}`);
    return inflateRawSync(buffer).toString("utf8");
  }

  /** Bytes the packed values take. */
  get bytes(): number {
    let n = 0;
    for (const c of this.#chunks) n += c.length;
    for (const s of this.#open) n += s.length;
    return n;
  }
}
