import { JsonPack } from "../../core/json-pack.js";
import type { WorkItem } from "../../core/model.js";

/** The parts of an item that take most of its memory and that planning a migration never reads. */
const HEAVY = ["description", "comments", "timeEntries", "richDescription"] as const;
type Heavy = Partial<Pick<WorkItem, (typeof HEAVY)[number]>>;

const PACK = Symbol("pack");
const SLOT = Symbol("slot");

interface Packed {
  readonly [PACK]: JsonPack<Heavy>;
  readonly [SLOT]: number;
}

/**
 * One getter per heavy part, shared by every item a read lightens: an own, enumerable accessor,
 * so that a spread, `Object.entries`, JSON and equality see the value as they saw the data, and
 * items with the same parts share one hidden class.
 */
const getters = Object.fromEntries(
  HEAVY.map((part) => [
    part,
    function (this: Packed): unknown {
      return this[PACK].get(this[SLOT])[part];
    },
  ]),
) as Record<(typeof HEAVY)[number], (this: Packed) => unknown>;

/**
 * What a full read keeps of each item as it reads it, for a migration: its description, comments,
 * time entries and rich description packed (core/json-pack.ts), read back when asked. A migration
 * holds every item of the project from its read until its plan is made — a kilobyte of objects
 * per item, most of it those parts, multiplied by the heap's growth: at 50,000 items the read's
 * end was the run's peak (docs/benchmarks.md). Planning a migration reads an item's fields, its
 * people and its marker, never those parts; its creates are packed in turn once planned
 * (plan/lazy-create.ts), which reads each item's parts once, in the read's order.
 *
 * Not for a sync: it looks items up out of order, and each look at a packed part would decode its
 * chunk again. One lightener per read attempt: a retried read starts a fresh pack.
 */
export function lightener(): (item: WorkItem) => WorkItem {
  const pack = new JsonPack<Heavy>({ chunk: 64 });
  return (item) => {
    const heavy: Record<string, unknown> = {};
    let any = false;
    for (const part of HEAVY) {
      const value = item[part];
      if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
      heavy[part] = value;
      any = true;
    }
    if (!any) return item;
    const slot = pack.add(heavy);
    const light: Record<PropertyKey, unknown> = {};
    for (const [key, value] of Object.entries(item)) {
      if (Object.hasOwn(heavy, key))
        Object.defineProperty(light, key, {
          get: getters[key as (typeof HEAVY)[number]],
          enumerable: true,
        });
      else light[key] = value;
    }
    Object.defineProperty(light, PACK, { value: pack });
    Object.defineProperty(light, SLOT, { value: slot });
    return light as unknown as WorkItem;
  };
}
