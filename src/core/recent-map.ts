/**
 * A map that keeps at most `limit` entries, the least recently read or written dropped first.
 * For what a run learns as it goes when most of it is never asked for again: a value read back
 * stays; a value seen once (a title, a description) makes room in time.
 */
export class RecentMap<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #limit: number;

  constructor(limit: number) {
    if (!(limit >= 1)) throw new RangeError(`RecentMap limit must be at least 1, got ${limit}`);
    this.#limit = limit;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    // A Map iterates in insertion order: taking the entry out and back in makes it the newest.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: K, value: V): this {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#limit) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    return this;
  }
}
