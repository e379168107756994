import type { z } from "zod";
import type { DeliveryOutcome } from "./metrics.js";
import type { ItemSelection } from "./types.js";

/** A delivery as the HTTP layer hands it over. */
export interface Delivery {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** What the route answers, and what the intake should do with a verified delivery. */
export interface DeliveryVerdict {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
  readonly outcome: DeliveryOutcome;
  /** Set when the delivery is verified and concerns jobs: the run to ask for. */
  readonly run?: {
    readonly deliveryId: string;
    readonly jobs: readonly string[];
    readonly items: ItemSelection;
    /** Each named item's last change as the delivery carries it (echo detection, own-writes.ts). */
    readonly stamps?: ReadonlyMap<string, string> | undefined;
  };
}

/** A header of the delivery (the first, if sent more than once). */
export function deliveryHeader(d: Delivery, name: string): string | undefined {
  const v = d.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** 401: the delivery is not signed with a secret of any job's target. */
export function refusedDelivery(message: string): DeliveryVerdict {
  return { status: 401, body: { message }, outcome: "rejected" };
}

/** 400: the delivery lacks a header it must carry. */
export function missingHeader(name: string): DeliveryVerdict {
  return { status: 400, body: { message: `missing ${name}` }, outcome: "rejected" };
}

/** The delivery's JSON body as `schema` reads it, or the 400 that refuses it. */
export function deliveryPayload<T>(
  d: Delivery,
  schema: z.ZodType<T>,
): { payload: T } | { verdict: DeliveryVerdict } {
  let json: unknown;
  try {
    json = JSON.parse(d.body);
  } catch {
    return { verdict: { status: 400, body: { message: "body is not JSON" }, outcome: "rejected" } };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    return {
      verdict: { status: 400, body: { message: "payload not understood" }, outcome: "rejected" },
    };
  return { payload: parsed.data };
}
