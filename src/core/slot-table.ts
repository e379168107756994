/**
 * The parts of a table kept in columns rather than an object per row: what a run keeps per item
 * to its end (an adapter's known versions) cost an object, a boxed number and a string or two
 * each — 200 to 600 bytes an item, tens of megabytes at 50,000 items, where the run peaks.
 */

/** Keys to dense slot numbers; a deleted key's slot is reused. `grow` is told each new size. */
export class Slots<K> {
  readonly #slots = new Map<K, number>();
  readonly #free: number[] = [];
  readonly #grow: (size: number) => void;
  #next = 0;
  #capacity: number;

  constructor(capacity: number, grow: (size: number) => void) {
    this.#capacity = capacity;
    this.#grow = grow;
  }

  get size(): number {
    return this.#slots.size;
  }

  has(key: K): boolean {
    return this.#slots.has(key);
  }

  slotOf(key: K): number | undefined {
    return this.#slots.get(key);
  }

  /** The key's slot, a free one given it when it has none. */
  take(key: K): number {
    const known = this.#slots.get(key);
    if (known !== undefined) return known;
    let slot = this.#free.pop();
    if (slot === undefined) {
      slot = this.#next++;
      if (slot >= this.#capacity) this.#grow((this.#capacity *= 2));
    }
    this.#slots.set(key, slot);
    return slot;
  }

  keys(): IterableIterator<K> {
    return this.#slots.keys();
  }

  /** Frees every slot (the columns keep their size). */
  clear(): void {
    this.#slots.clear();
    this.#free.length = 0;
    this.#next = 0;
  }

  /** Frees the key's slot: the slot it had, or undefined. */
  delete(key: K): number | undefined {
    const slot = this.#slots.get(key);
    if (slot === undefined) return undefined;
    this.#slots.delete(key);
    this.#free.push(slot);
    return slot;
  }
}

/** `old`'s values at the start of a new array of `size`. */
export function grown<A extends Float64Array | Uint8Array>(old: A, next: A): A {
  next.set(old);
  return next;
}

/**
 * Short strings (hashes, digests), one a slot, inline as one byte a character in fixed-width
 * rows; a string longer than a row or with a character past U+00FF is kept beside them whole.
 */
export class InlineStrings {
  readonly #width: number;
  readonly #wide = new Map<number, string>();
  #bytes: Buffer;
  #length: Uint8Array;

  constructor(width: number, capacity: number) {
    if (width > 255) throw new RangeError(`inline strings of ${width} characters: 255 at most`);
    this.#width = width;
    this.#bytes = Buffer.alloc(capacity * width);
    this.#length = new Uint8Array(capacity);
  }

  get(slot: number): string {
    const wide = this.#wide.get(slot);
    if (wide !== undefined) return wide;
    const start = slot * this.#width;
    return this.#bytes.toString("latin1", start, start + (this.#length[slot] ?? 0));
  }

  set(slot: number, value: string): void {
    // eslint-disable-next-line no-control-regex -- one byte a character: Latin-1 holds it
    if (value.length <= this.#width && /^[\x00-\xff]*$/.test(value)) {
      this.#wide.delete(slot);
      this.#bytes.write(value, slot * this.#width, "latin1");
      this.#length[slot] = value.length;
    } else {
      this.#wide.set(slot, value);
    }
  }

  /** Forgets every string kept beside the rows. */
  clear(): void {
    this.#wide.clear();
  }

  /** Forgets a freed slot's string kept beside the rows. */
  delete(slot: number): void {
    this.#wide.delete(slot);
  }

  grow(capacity: number): void {
    const bytes = Buffer.alloc(capacity * this.#width);
    this.#bytes.copy(bytes);
    this.#bytes = bytes;
    this.#length = grown(this.#length, new Uint8Array(capacity));
  }
}
