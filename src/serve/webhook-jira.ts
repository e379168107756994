import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { ServeJob } from "./types.js";
import {
  deliveryHeader,
  deliveryPayload,
  missingHeader,
  refusedDelivery,
  type Delivery,
  type DeliveryVerdict,
} from "./webhook-delivery.js";
import { routeWorklog, type JiraIssueLocator, type WorklogRoute } from "./webhook-jira-worklog.js";

/** Jira Cloud webhook events a job syncs: by prefix of `webhookEvent`. */
const JIRA_EVENT = /^(jira:issue_(created|updated|deleted)|comment_\w+|worklog_\w+|sprint_\w+)$/;

const Payload = z.looseObject({
  webhookEvent: z.string(),
  issue_event_type_name: z.string().optional(),
  worklog: z.looseObject({ issueId: z.string(), self: z.string().optional() }).optional(),
  issue: z
    .looseObject({
      key: z.string(),
      fields: z
        .looseObject({
          project: z.looseObject({ key: z.string() }).optional(),
          updated: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
});

/** Whether `X-Hub-Signature: sha256=<hex>` is the HMAC-SHA256 of the raw body under `secret`. */
export function jiraSignatureValid(body: string, signature: string, secret: string): boolean {
  const m = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim());
  if (m?.[1] === undefined) return false;
  const expected = createHmac("sha256", secret).update(body, "utf8").digest();
  return timingSafeEqual(expected, Buffer.from(m[1], "hex"));
}

/** The signature Jira Cloud puts on a delivery (the sandbox signs with it too). */
export function jiraSignature(body: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(body, "utf8").digest("hex")}`;
}

export interface JiraWebhooks {
  readonly enabled: boolean;
  judge(delivery: Delivery): Promise<DeliveryVerdict>;
}

/**
 * Verifies Jira Cloud deliveries (WebSub `X-Hub-Signature: sha256=…` over the raw body) against
 * every Jira target's secret and finds the jobs on the issue's project. Issue and comment events
 * name their issue (by key); a worklog event names its issue by id only, so `locate` asks each
 * target which issue that is (key and project) and the delivery goes to the jobs on that
 * project, naming the key; sprint events touch the whole job.
 */
export function createJiraWebhooks(
  jobs: readonly ServeJob[],
  locate?: JiraIssueLocator,
): JiraWebhooks {
  const bySecret = new Map<string, ServeJob[]>();
  for (const job of jobs) {
    const t = job.target;
    if (t.type !== "jira" || t.webhookSecret === undefined) continue;
    bySecret.set(t.webhookSecret, [...(bySecret.get(t.webhookSecret) ?? []), job]);
  }
  return {
    enabled: bySecret.size > 0,
    async judge(d) {
      const signature = deliveryHeader(d, "x-hub-signature");
      if (signature === undefined) return refusedDelivery("missing X-Hub-Signature");
      let signedFor: ServeJob[] | undefined;
      for (const [secret, signed] of bySecret) {
        if (jiraSignatureValid(d.body, signature, secret)) {
          signedFor = signed;
          break;
        }
      }
      if (signedFor === undefined) return refusedDelivery("signature does not match");
      const deliveryId =
        deliveryHeader(d, "x-atlassian-webhook-identifier") ??
        (signedFor.every(isDataCenter) ? dataCenterDeliveryId(d.body) : undefined);
      if (deliveryId === undefined || deliveryId === "")
        return missingHeader("X-Atlassian-Webhook-Identifier");
      const read = deliveryPayload(d, Payload);
      if ("verdict" in read) return read.verdict;
      const p = read.payload;
      if (!JIRA_EVENT.test(p.webhookEvent))
        return {
          status: 202,
          body: { message: `event ${p.webhookEvent} ignored` },
          outcome: "ignored",
        };
      if (p.worklog !== undefined && p.issue === undefined && p.webhookEvent.startsWith("worklog_"))
        return accepted(
          deliveryId,
          await routeWorklog(signedFor, p.worklog.issueId, p.worklog.self, locate),
        );
      const project = p.issue?.fields?.project?.key ?? projectOfKey(p.issue?.key);
      const matching = signedFor
        .filter(
          (j) =>
            j.target.type === "jira" && (project === undefined || j.target.project === project),
        )
        .map((j) => j.name);
      if (matching.length === 0)
        return {
          status: 202,
          body: { message: `no job syncs project ${project ?? "?"}` },
          outcome: "ignored",
        };
      // Sprint events may touch many issues: the whole job.
      const named =
        p.issue !== undefined && /^(jira:issue_|comment_)/.test(p.webhookEvent)
          ? new Set([p.issue.key])
          : undefined;
      // A deletion leaves the issue's `updated` as it was: never taken for an echo.
      const deletion =
        p.webhookEvent === "jira:issue_deleted" ||
        p.issue_event_type_name?.endsWith("_deleted") === true;
      const updated = deletion ? undefined : p.issue?.fields?.updated;
      return accepted(deliveryId, {
        jobs: matching,
        items: named,
        ...(named !== undefined &&
          p.issue !== undefined &&
          updated !== undefined && { stamps: new Map([[p.issue.key, updated]]) }),
      });
    },
  };
}

/** The verdict for the jobs a delivery concerns (none: acknowledged and ignored). */
function accepted(
  deliveryId: string,
  route: WorklogRoute & { readonly stamps?: ReadonlyMap<string, string> | undefined },
): DeliveryVerdict {
  if (route.jobs.length === 0)
    return {
      status: 202,
      body: { message: route.why ?? "no job syncs this issue" },
      outcome: "ignored",
    };
  return {
    status: 202,
    body: { message: "accepted", jobs: route.jobs },
    outcome: "accepted",
    run: { deliveryId, jobs: route.jobs, items: route.items, stamps: route.stamps },
  };
}

function isDataCenter(job: ServeJob): boolean {
  return job.target.type === "jira" && job.target.deployment === "datacenter";
}

/**
 * A Data Center delivery's id when it names none (Jira 10's webhooks are not documented to send
 * `X-Atlassian-Webhook-Identifier`): the digest of its signed body, which holds the event's
 * `timestamp`, so a retry of one event is recognised and two events are told apart.
 */
export function dataCenterDeliveryId(body: string): string {
  return `dc-${createHash("sha256").update(body, "utf8").digest("hex").slice(0, 32)}`;
}

/** `WID-12` → `WID`. */
function projectOfKey(key: string | undefined): string | undefined {
  const m = key === undefined ? null : /^([A-Z][A-Z0-9_]*)-\d+$/.exec(key);
  return m?.[1];
}
