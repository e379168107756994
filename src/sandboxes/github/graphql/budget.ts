/**
 * GitHub's GraphQL limits as the sandbox applies them: a primary budget of points per hour (a
 * query costs its computed cost, a mutation request 1, as recorded traffic shows), and the
 * secondary limit of points per minute on the endpoint, where a request without mutations counts
 * 1 and one with mutations 5.
 */
export interface GraphqlBudgetConfig {
  readonly pointsPerHour: number;
  readonly pointsPerMinute: number;
  /** `false`: charged and reported, never refused (`rateLimits: "off"`). */
  readonly enforce: boolean;
}

export interface BudgetState {
  readonly limit: number;
  readonly used: number;
  readonly remaining: number;
  /** Epoch ms when the hour's window resets. */
  readonly resetAt: number;
}

export type BudgetDecision =
  | { readonly ok: true; readonly state: BudgetState }
  | {
      readonly ok: false;
      readonly kind: "primary" | "secondary";
      readonly state: BudgetState;
      readonly retryAfterMs: number;
    };

export interface GraphqlBudget {
  peek(now: number): BudgetState;
  charge(now: number, cost: number, mutation: boolean): BudgetDecision;
  reset(): void;
}

const HOUR = 3_600_000;
const MINUTE = 60_000;

export function createGraphqlBudget(config: GraphqlBudgetConfig): GraphqlBudget {
  let windowStart: number | undefined;
  let used = 0;
  let recent: { at: number; points: number }[] = [];
  const roll = (now: number): void => {
    if (windowStart === undefined || now >= windowStart + HOUR) {
      windowStart = now;
      used = 0;
    }
    recent = recent.filter((r) => r.at > now - MINUTE);
  };
  const state = (now: number): BudgetState => ({
    limit: config.pointsPerHour,
    used,
    remaining: Math.max(0, config.pointsPerHour - used),
    resetAt: (windowStart ?? now) + HOUR,
  });
  return {
    peek(now) {
      roll(now);
      return state(now);
    },
    charge(now, cost, mutation) {
      roll(now);
      const points = mutation ? 5 : 1;
      const minute = recent.reduce((s, r) => s + r.points, 0);
      if (config.enforce && minute + points > config.pointsPerMinute) {
        const oldest = recent[0]?.at ?? now;
        return {
          ok: false,
          kind: "secondary",
          state: state(now),
          retryAfterMs: oldest + MINUTE - now,
        };
      }
      if (config.enforce && used + cost > config.pointsPerHour)
        return {
          ok: false,
          kind: "primary",
          state: state(now),
          retryAfterMs: state(now).resetAt - now,
        };
      used += cost;
      recent.push({ at: now, points });
      return { ok: true, state: state(now) };
    },
    reset() {
      windowStart = undefined;
      used = 0;
      recent = [];
    },
  };
}
