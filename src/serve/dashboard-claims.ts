import { escapeHtml as h } from "../report/escape.js";
import type { ClaimApi } from "./claims-api.js";
import type { JobApi } from "./api-routes.js";

/** How many claims the page lists per target; /api/jobs lists them all. */
const CLAIMS_LISTED = 100;

/** A job's claims in the jobs table: how many it holds and how many of them are linked. */
export function claimsCell(j: JobApi): string {
  const c = j.claims;
  if (c.held === 0) return `<td data-claims="0"><span class="muted">none</span></td>`;
  const open = c.held - c.imported;
  return `<td data-claims="${c.held}">${c.held} (${c.imported} imported${open > 0 ? `, ${open} not` : ""})</td>`;
}

/**
 * The import claims on each job's target, one table per target: the claimed item, the job that
 * holds it (imports it; no other job on that target does) and what became of it.
 */
export function claimsSection(jobs: readonly JobApi[]): string {
  const byLocation = new Map<string, { jobs: Set<string>; claims: Map<string, ClaimApi> }>();
  for (const j of jobs)
    for (const c of j.claims.items) {
      const at = byLocation.get(c.location) ?? { jobs: new Set(), claims: new Map() };
      byLocation.set(c.location, at);
      at.jobs.add(j.name);
      at.claims.set(`${c.kind} ${c.targetId}`, c);
    }
  const head = `<h2 id="claims">Import claims</h2>`;
  if (byLocation.size === 0)
    return `${head}<p class="muted">No job holds an import claim (they are taken when jobs share a target and import its unmarked items).</p>`;
  const tables = [...byLocation].map(([location, at]) => {
    const claims = [...at.claims.values()];
    const rows = claims
      .slice(0, CLAIMS_LISTED)
      .map(
        (c) =>
          `<tr data-claim="${h(c.targetId)}" data-claimed-by="${h(c.job)}"><td>${h(c.kind)} ${h(c.targetId)}</td><td><strong>${h(c.job)}</strong></td><td class="${c.status === "imported" ? "ok" : "partial"}">${h(c.status)}</td><td><time datetime="${h(c.claimedAt)}">${h(c.claimedAt)}</time></td></tr>`,
      )
      .join("\n");
    const more =
      claims.length > CLAIMS_LISTED
        ? `<p class="muted">and ${claims.length - CLAIMS_LISTED} more (all of them in /api/jobs).</p>`
        : "";
    return `<h3>${h(location)} <span class="muted">(jobs ${h([...at.jobs].sort().join(", "))})</span></h3>
<table data-location="${h(location)}"><thead><tr><th>Item</th><th>Claimed by job</th><th>Status</th><th>Since</th></tr></thead><tbody>${rows}</tbody></table>${more}`;
  });
  return `${head}
<p class="muted">An unmarked item of a target several jobs share is imported by exactly one job: the one holding its claim.</p>
${tables.join("\n")}`;
}
