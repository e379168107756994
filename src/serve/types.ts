import type { ScheduleConfig } from "../config/schema.js";
import type { SystemName } from "../core/model.js";

/** Where a job's items are seen in a browser: tinyPM's web root and the target's issue pages. */
export interface ItemPages {
  /** `http://host/tinypm` (the API root without `/api`). */
  readonly tinypmWebRoot: string;
  /** The target's issue page of an id: `<repo>/issues/7` on GitHub, `<site>/browse/KEY` on Jira. */
  readonly target: (id: string) => string;
}

/** What the service knows of one configured job (built by the CLI from the resolved config). */
export interface ServeJob {
  readonly name: string;
  readonly schedule: ScheduleConfig | undefined;
  readonly target: ServeTarget;
  /** Where its items are seen in a browser (dashboard links); absent: no links. */
  readonly pages?: ItemPages | undefined;
}

/** A job's target, as far as webhooks need it: which deliveries concern the job. */
export type ServeTarget = (
  | {
      readonly name: string;
      readonly type: "github";
      readonly owner: string;
      readonly repo: string;
      /** The login owning the job's Project (v2) board, if any (`projects_v2_item` deliveries). */
      readonly projectOwner?: string | undefined;
      /**
       * Whether a comment body carries the tool's comment marker (the adapter's reading of it):
       * a comment without it is a person's, never the echo of the tool's own write.
       */
      readonly ownComment?: ((body: string | null | undefined) => boolean) | undefined;
      /** The secret deliveries are signed with (`webhookSecretEnv`); none: webhooks refused. */
      readonly webhookSecret: string | undefined;
    }
  | {
      readonly name: string;
      readonly type: "jira";
      readonly project: string;
      /** The site's base URL (tells which target a worklog delivery's `self` link is on). */
      readonly baseUrl?: string | undefined;
      readonly webhookSecret: string | undefined;
      /** `datacenter`: deliveries may name no `X-Atlassian-Webhook-Identifier`. */
      readonly deployment?: "cloud" | "datacenter" | undefined;
    }
) & {
  /** Where its items live (`targetLocation`): the scope of import claims the dashboard shows. */
  readonly location?: string | undefined;
};

/** Why a run started. */
export type RunTrigger = "startup" | "schedule" | "webhook" | "manual" | "deferred";

/**
 * The target items a webhook named, by target id (GitHub: issue number; Jira: issue key or id).
 * `undefined` where a run covers the whole job.
 */
export type ItemSelection = ReadonlySet<string> | undefined;

/** One system a job talks to, as readiness probes it. */
export interface SystemCheck {
  readonly job: string;
  readonly system: SystemName;
  readonly ok: boolean;
  /** Why it is not ready (never a secret). */
  readonly detail: string;
}
