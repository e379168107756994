import type { ItemKind } from "../core/model.js";
import type { LinkRecord } from "../state/records.js";
import type { StateStore } from "../state/store.js";
import type { ItemPages, ServeJob } from "./types.js";

export type { ItemPages } from "./types.js";

/** GitHub's web root of an API base: api.github.com → github.com; GHES drops `/api/v3`. */
function githubWebRoot(apiBase: string): string {
  const url = new URL(apiBase);
  if (url.hostname === "api.github.com") return "https://github.com";
  return `${url.origin}${url.pathname.replace(/\/+$/, "").replace(/\/api\/v3$/i, "")}`;
}

export function itemPages(
  /** tinyPM's web root (`webRootOf` of its API base, adapters/tinypm/map.ts). */
  tinypmWebRoot: string,
  target:
    | {
        readonly type: "github";
        readonly baseUrl: string;
        readonly owner: string;
        readonly repo: string;
      }
    | { readonly type: "jira"; readonly baseUrl: string },
): ItemPages {
  const root =
    target.type === "github"
      ? `${githubWebRoot(target.baseUrl)}/${encodeURIComponent(target.owner)}/${encodeURIComponent(target.repo)}/issues/`
      : `${target.baseUrl.replace(/\/+$/, "")}/browse/`;
  return {
    tinypmWebRoot,
    target: (id) => `${root}${encodeURIComponent(id)}`,
  };
}

/** The tinyPM page of an item: a story's own, a task's story's (tasks have none of their own). */
export function tinypmPage(
  pages: ItemPages,
  kind: ItemKind,
  tinypmId: string,
  storyId: string | undefined,
): string | undefined {
  const story = kind === "story" ? tinypmId : storyId;
  return story === undefined
    ? undefined
    : `${pages.tinypmWebRoot}/userStory/show/${encodeURIComponent(story)}`;
}

/** What the dashboard shows of a conflict's item: its title and its pages on both sides. */
export interface ConflictItem {
  readonly title: string | undefined;
  readonly tinypmUrl: string | undefined;
  readonly targetUrl: string | undefined;
}

/**
 * The title (from the link's last synced tinyPM side) and pages of each conflict's item, by
 * conflict id; conflicts whose link is gone get neither title nor tinyPM page of a task.
 */
export async function conflictItems(
  state: Pick<StateStore, "links">,
  jobs: readonly ServeJob[],
  conflicts: readonly {
    readonly id: number;
    readonly job: string;
    readonly kind: ItemKind;
    readonly tinypmId: string;
    readonly targetId: string;
  }[],
): Promise<Map<number, ConflictItem>> {
  const out = new Map<number, ConflictItem>();
  const byJob = new Map<string, (typeof conflicts)[number][]>();
  for (const c of conflicts) byJob.set(c.job, [...(byJob.get(c.job) ?? []), c]);
  for (const [job, list] of byJob) {
    const wanted = new Set(list.map((c) => `${c.kind}:${c.tinypmId}`));
    const links = new Map<string, LinkRecord>();
    for await (const l of state.links(job))
      if (wanted.has(`${l.kind}:${l.tinypmId}`)) links.set(`${l.kind}:${l.tinypmId}`, l);
    const pages = jobs.find((j) => j.name === job)?.pages;
    for (const c of list) {
      const link = links.get(`${c.kind}:${c.tinypmId}`);
      const fields = (link?.base.tinypm as { fields?: { title?: unknown } } | undefined)?.fields;
      out.set(c.id, {
        title: typeof fields?.title === "string" ? fields.title : undefined,
        tinypmUrl:
          pages === undefined
            ? undefined
            : tinypmPage(pages, c.kind, c.tinypmId, link?.parentTinypmId),
        targetUrl: pages?.target(c.targetId),
      });
    }
  }
  return out;
}
