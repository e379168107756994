/**
 * Runs tasks one at a time, in order: a lock around work that must not interleave (creates that
 * check for an existing item first). Not a rate limit: those live in the request gate.
 */
export interface Serial {
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function createSerial(): Serial {
  const limit = 1;
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = (): void => {
    active--;
    const next = waiting.shift();
    if (next) {
      active++;
      next();
    }
  };
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      else active++;
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}

/**
 * Maps `items` through `fn` with at most `window` calls in flight, yielding results in input
 * order (a sliding window: memory stays bounded by `window`).
 */
export async function* mapOrdered<T, R>(
  items: Iterable<T>,
  window: number,
  fn: (item: T, index: number) => Promise<R>,
): AsyncGenerator<R> {
  const inFlight: Promise<R>[] = [];
  let index = 0;
  try {
    for (const item of items) {
      const p = fn(item, index++);
      p.catch(() => undefined);
      inFlight.push(p);
      const head = inFlight.length >= window ? inFlight.shift() : undefined;
      if (head) yield await head;
    }
    for (let head = inFlight.shift(); head; head = inFlight.shift()) yield await head;
  } finally {
    inFlight.length = 0;
  }
}
