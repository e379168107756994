// Jira sandbox throughput (no rate limits): bulk-creates ISSUES issues (50 per call), reads them
// back through /rest/api/3/search/jql (100 per page, summary and updated), then makes sequential
// GET /issue/{key} calls. Figures: issues created per second, issues searched per second, GETs
// per second. Usage: npm run bench -- jira-sandbox   (BENCH_JIRA_ISSUES, default 5000)
import { startJiraSandbox } from "../dist/sandboxes/jira/index.js";

const ISSUES = Number(process.env.BENCH_JIRA_ISSUES ?? 5000);
const GETS = 2000;

export async function run() {
  const sandbox = await startJiraSandbox();
  const auth = `Basic ${Buffer.from(`${sandbox.email}:${sandbox.token}`).toString("base64")}`;
  const call = async (path, init = {}) => {
    const res = await fetch(`${sandbox.url}${path}`, {
      ...init,
      headers: { authorization: auth, "content-type": "application/json" },
    });
    if (res.status >= 300) throw new Error(`${path}: HTTP ${res.status}`);
    return res.status === 204 ? undefined : res.json();
  };
  try {
    let t = performance.now();
    for (let done = 0; done < ISSUES; done += 50) {
      const issueUpdates = Array.from({ length: Math.min(50, ISSUES - done) }, (_, i) => ({
        fields: {
          project: { key: "WID" },
          issuetype: { name: "Story" },
          summary: `Story ${done + i}`,
          labels: ["bench"],
          customfield_10016: 3,
        },
      }));
      await call("/rest/api/3/issue/bulk", {
        method: "POST",
        body: JSON.stringify({ issueUpdates }),
      });
    }
    const createSeconds = (performance.now() - t) / 1000;

    t = performance.now();
    let token;
    let seen = 0;
    do {
      const page = await call("/rest/api/3/search/jql", {
        method: "POST",
        body: JSON.stringify({
          jql: "project = WID ORDER BY updated ASC, key ASC",
          fields: ["summary", "updated"],
          maxResults: 100,
          ...(token ? { nextPageToken: token } : {}),
        }),
      });
      seen += page.issues.length;
      token = page.nextPageToken;
    } while (token);
    const searchSeconds = (performance.now() - t) / 1000;

    t = performance.now();
    for (let i = 0; i < GETS; i++) await call(`/rest/api/3/issue/WID-${(i % ISSUES) + 1}`);
    const getSeconds = (performance.now() - t) / 1000;

    return {
      name: "jira-sandbox",
      figures: {
        issues: ISSUES,
        "bulk-created issues/s": Math.round(ISSUES / createSeconds),
        "searched issues/s (100 per page)": Math.round(seen / searchSeconds),
        "GET /issue/{key} per s (sequential)": Math.round(GETS / getSeconds),
      },
      targets: {
        "bulk-created issues/s": "well above Jira Cloud's practical ~500 issues/s",
        "searched issues/s (100 per page)": "≥ 2,000 (a full scan of 10,000 issues in seconds)",
      },
    };
  } finally {
    await sandbox.close();
  }
}
