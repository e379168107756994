// Jira Data Center vs Cloud: the same migration as jira-migrate.bench.mjs (stories with 3
// sub-tasks, 2 comments and 2 worklogs each) into the Cloud sandbox and then the Data Center
// sandbox (REST v2, wiki markup, /search with startAt, users by name), and the API calls per
// created item on each. Issue #34 asks that DC stay within 10 % of Cloud.
// Usage: npm run bench -- jira-dc-migrate   (BENCH_JIRA_DC_STORIES, default 2000)
import { runMigration } from "./jira-migrate.bench.mjs";

const STORIES = Number(process.env.BENCH_JIRA_DC_STORIES ?? 2000);

export async function run() {
  const cloud = await runMigration({ deployment: "cloud", stories: STORIES });
  const dc = await runMigration({ deployment: "datacenter", stories: STORIES });
  const perItem = (r) => Number(r.figures["API calls per created item"]);
  const ratio = perItem(dc) / perItem(cloud);
  // What the sandbox itself served, per created item: the adapter's calls as the server saw them
  // (a dialect step that made extra requests, e.g. per-type create metadata, would show here).
  const items = (r) => r.figures.stories + r.figures["sub-tasks"] + 4 * r.figures.stories;
  const served = (r) => Number((r.figures["sandbox requests"] / items(r)).toFixed(3));
  return {
    name: "jira-dc-migrate",
    figures: {
      stories: STORIES,
      "Cloud API calls per created item": perItem(cloud),
      "Data Center API calls per created item": perItem(dc),
      "Data Center / Cloud": Number(ratio.toFixed(3)),
      "Cloud sandbox requests per created item": served(cloud),
      "Data Center sandbox requests per created item": served(dc),
      "Cloud wall time (s)": cloud.figures["wall time (s)"],
      "Data Center wall time (s)": dc.figures["wall time (s)"],
      "Cloud calls by kind": cloud.figures["calls by kind"],
      "Data Center calls by kind": dc.figures["calls by kind"],
    },
    targets: { "Data Center / Cloud": "≤ 1.10 (calls per item within 10 % of Cloud)" },
  };
}
