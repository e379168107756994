/** Request counters every bundled server answers at `GET /_sandbox/stats`. */
export interface ServerStats {
  /** Every request, including those answered with an error or a fault. */
  readonly requests: number;
  /** Counts per `METHOD /route/pattern`. */
  readonly byRoute: Readonly<Record<string, number>>;
  /** Counts per HTTP method. */
  readonly byMethod: Readonly<Record<string, number>>;
  /** Requests that changed data (successful POST, PUT, PATCH, DELETE). */
  readonly writes: number;
  /** Requests answered 304 Not Modified. */
  readonly notModified: number;
  /** Requests refused by a rate limit (403/429). */
  readonly rateLimited: number;
  /** Faults injected, by kind. */
  readonly faults: Readonly<Record<string, number>>;
  /** Responses per status code. */
  readonly byStatus: Readonly<Record<string, number>>;
}

export interface StatsRecorder {
  request(method: string, route: string): void;
  status(code: number): void;
  write(): void;
  notModified(): void;
  rateLimited(): void;
  fault(kind: string): void;
  snapshot(): ServerStats;
  reset(): void;
}

function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

export function createStats(): StatsRecorder {
  let s = empty();
  return {
    request(method, route) {
      s.requests++;
      bump(s.byMethod, method);
      bump(s.byRoute, `${method} ${route}`);
    },
    status: (code) => {
      bump(s.byStatus, String(code));
    },
    write: () => {
      s.writes++;
    },
    notModified: () => {
      s.notModified++;
    },
    rateLimited: () => {
      s.rateLimited++;
    },
    fault: (kind) => {
      bump(s.faults, kind);
    },
    snapshot: () => structuredClone(s),
    reset: () => {
      s = empty();
    },
  };
}

function empty(): {
  requests: number;
  byRoute: Record<string, number>;
  byMethod: Record<string, number>;
  writes: number;
  notModified: number;
  rateLimited: number;
  faults: Record<string, number>;
  byStatus: Record<string, number>;
} {
  return {
    requests: 0,
    byRoute: {},
    byMethod: {},
    writes: 0,
    notModified: 0,
    rateLimited: 0,
    faults: {},
    byStatus: {},
  };
}
