import { Webhooks } from "@octokit/webhooks";
import { z } from "zod";
import type { ItemSelection, ServeJob } from "./types.js";
import {
  deliveryHeader as header,
  deliveryPayload,
  missingHeader,
  refusedDelivery as refused,
  type Delivery,
  type DeliveryVerdict,
} from "./webhook-delivery.js";

export type { Delivery, DeliveryVerdict } from "./webhook-delivery.js";

/** GitHub events that name items a job syncs (others are acknowledged and ignored). */
export const GITHUB_EVENTS = [
  "issues",
  "issue_comment",
  "sub_issues",
  "milestone",
  "label",
  // An organization's Project (v2) board: an item added, a field value set, an item removed.
  "projects_v2_item",
] as const;

const Numbered = z.looseObject({
  number: z.number().int(),
  updated_at: z.string().optional(),
});
const Payload = z.looseObject({
  action: z.string().optional(),
  comment: z
    .looseObject({ updated_at: z.string().optional(), body: z.string().nullable().optional() })
    .optional(),
  repository: z.looseObject({ full_name: z.string() }).optional(),
  issue: Numbered.optional(),
  parent_issue: Numbered.optional(),
  sub_issue: Numbered.optional(),
  organization: z.looseObject({ login: z.string() }).optional(),
});

/**
 * Verifies GitHub deliveries (`X-Hub-Signature-256`, with @octokit/webhooks) against the secret
 * of every GitHub target that names one, and finds the jobs on the delivery's repository.
 */
export interface GithubWebhooks {
  /** Whether any GitHub target can receive deliveries (a secret is configured). */
  readonly enabled: boolean;
  judge(delivery: Delivery): Promise<DeliveryVerdict>;
}

export function createGithubWebhooks(jobs: readonly ServeJob[]): GithubWebhooks {
  // One verifier per distinct secret, each with the jobs whose target uses it.
  const bySecret = new Map<string, { verifier: Webhooks; jobs: ServeJob[] }>();
  for (const job of jobs) {
    const t = job.target;
    if (t.type !== "github" || t.webhookSecret === undefined) continue;
    const entry = bySecret.get(t.webhookSecret) ?? {
      verifier: new Webhooks({ secret: t.webhookSecret }),
      jobs: [],
    };
    entry.jobs.push(job);
    bySecret.set(t.webhookSecret, entry);
  }
  return {
    enabled: bySecret.size > 0,
    async judge(d) {
      const signature = header(d, "x-hub-signature-256");
      if (!signature?.startsWith("sha256=")) return refused("missing X-Hub-Signature-256");
      let signedFor: ServeJob[] | undefined;
      for (const { verifier, jobs: signed } of bySecret.values()) {
        if (await verifier.verify(d.body, signature).catch(() => false)) {
          signedFor = signed;
          break;
        }
      }
      if (signedFor === undefined) return refused("signature does not match");
      const event = header(d, "x-github-event") ?? "";
      const deliveryId = header(d, "x-github-delivery");
      if (deliveryId === undefined || deliveryId === "") return missingHeader("X-GitHub-Delivery");
      if (event === "ping") return { status: 200, body: { message: "pong" }, outcome: "ignored" };
      if (!(GITHUB_EVENTS as readonly string[]).includes(event))
        return { status: 202, body: { message: `event ${event} ignored` }, outcome: "ignored" };
      const read = deliveryPayload(d, Payload);
      if ("verdict" in read) return read.verdict;
      const p = read.payload;
      if (event === "projects_v2_item") return boardDelivery(deliveryId, signedFor, p);
      const repo = p.repository?.full_name.toLowerCase();
      const matching = signedFor
        .filter(
          (j) =>
            j.target.type === "github" &&
            `${j.target.owner}/${j.target.repo}`.toLowerCase() === repo,
        )
        .map((j) => j.name);
      if (matching.length === 0)
        return {
          status: 202,
          body: { message: `no job syncs ${p.repository?.full_name ?? "this repository"}` },
          outcome: "ignored",
        };
      return {
        status: 202,
        body: { message: "accepted", jobs: matching },
        outcome: "accepted",
        run: {
          deliveryId,
          jobs: matching,
          items: namedItems(event, p),
          stamps: stamps(p, ownCommentTest(signedFor)),
        },
      };
    },
  };
}

/**
 * Each named issue's last change as the delivery carries it: the comment's `updated_at` for a
 * comment event, else the issue's. None for a deletion: it leaves the time as it was.
 */
function stamps(
  p: z.infer<typeof Payload>,
  ownComment: ((body: string | null | undefined) => boolean) | undefined,
): Map<string, string> {
  const out = new Map<string, string>();
  if (p.action === "deleted" || p.action === "transferred") return out;
  if (p.comment !== undefined) {
    // The tool's comments carry its comment marker; one without it is a person's, whenever it
    // was made: never an echo (`""`), even within a second of the tool's write to the issue.
    const tools = ownComment?.(p.comment.body) ?? true;
    if (p.issue !== undefined && p.comment.updated_at !== undefined)
      out.set(String(p.issue.number), tools ? p.comment.updated_at : "");
    return out;
  }
  for (const x of [p.issue, p.parent_issue, p.sub_issue])
    if (x?.updated_at !== undefined) out.set(String(x.number), x.updated_at);
  return out;
}

/** The issues a delivery names; milestone and label changes touch any number: the whole job. */
function namedItems(event: string, p: z.infer<typeof Payload>): ItemSelection {
  const numbers = [p.issue, p.parent_issue, p.sub_issue]
    .filter((x) => x !== undefined)
    .map((x) => String(x.number));
  if (event === "milestone" || event === "label" || numbers.length === 0) return undefined;
  return new Set(numbers);
}

/**
 * A `projects_v2_item` delivery: an organization's board changed (GitHub sends none for a
 * user's project: such boards are read by the scheduled runs). It names the project and the
 * issue by node id only, so it runs every job whose board the organization owns, in full; the
 * run reads the board's changes alone (its digests), so a delivery for another project of the
 * organization costs one board read.
 */
function boardDelivery(
  deliveryId: string,
  signedFor: readonly ServeJob[],
  p: z.infer<typeof Payload>,
): DeliveryVerdict {
  const org = p.organization?.login.toLowerCase();
  const matching = signedFor
    .filter((j) => j.target.type === "github" && j.target.projectOwner?.toLowerCase() === org)
    .map((j) => j.name);
  if (org === undefined || matching.length === 0)
    return {
      status: 202,
      body: { message: `no job has a board of ${p.organization?.login ?? "this owner"}` },
      outcome: "ignored",
    };
  return {
    status: 202,
    body: { message: "accepted", jobs: matching },
    outcome: "accepted",
    run: { deliveryId, jobs: matching, items: undefined, stamps: new Map() },
  };
}

/** How the jobs' targets tell a comment of the tool's from a person's (none: all may be). */
function ownCommentTest(
  jobs: readonly ServeJob[],
): ((body: string | null | undefined) => boolean) | undefined {
  for (const j of jobs)
    if (j.target.type === "github" && j.target.ownComment) return j.target.ownComment;
  return undefined;
}
