/**
 * The `serve` dashboard as a person uses it, in headless Chromium with JavaScript off (the page is
 * plain HTML and form posts): the job's last and next run, a conflict made by editing one field
 * on both sides, "Take tinyPM" and "Sync now" carrying it over, a run's report; then with a token,
 * the login form.
 */
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTarget, createTinypm } from "../../src/adapters/registry.js";
import type { Tracker } from "../../src/core/tracker.js";
import { chromiumMissing, launchChromium } from "../support/chromium.js";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { editConfig, eventually, getJson, startServe, type Served } from "./serve-support.js";

const TOKEN = `dash-${"k".repeat(8)}-${Math.random().toString(36).slice(2)}-${Date.now()}`;

interface JobsAnswer {
  jobs: {
    name: string;
    running: boolean;
    pending: boolean;
    lastRun: { id: string; outcome: string } | null;
    nextRun: string | null;
  }[];
}
interface ConflictsAnswer {
  conflicts: { id: number; field: string; tinypmValue: unknown; targetValue: unknown }[];
}
interface RunsAnswer {
  runs: { id: string; outcome: string; triggers: string[] | null }[];
}

describe.skipIf(chromiumMissing)(
  "serve dashboard in Chromium (if skipped: chromium not installed: apt-get install chromium)",
  () => {
    let servers: Servers;
    let config: string;
    let served: Served | undefined;
    let browser: BrowserContext | undefined;
    let page: Page;
    let tinypm: Tracker;
    let github: Tracker;
    const tmp = tempDir();
    /** Every URL the page loaded: nothing from another origin. */
    const requests: string[] = [];

    const api = <T>(path: string, headers: Record<string, string> = {}): Promise<T> =>
      getJson<T>(`${served!.url}${path}`, headers);
    /** The job once it is idle after `runs` finished runs of this process. */
    const settled = async (runs: number, headers: Record<string, string> = {}): Promise<void> => {
      await eventually(
        async () => {
          const { jobs } = await api<JobsAnswer>("/api/jobs", headers);
          const { runs: done } = await api<RunsAnswer>("/api/runs?job=gh", headers);
          const gh = jobs.find((j) => j.name === "gh");
          const finished = done.filter((r) => r.triggers !== null && r.outcome !== "running");
          return gh !== undefined && !gh.running && !gh.pending && finished.length >= runs
            ? true
            : undefined;
        },
        `${runs} finished run(s) of job gh`,
        120_000,
      );
    };

    beforeAll(async () => {
      servers = await startServers("stories=3,tasks=1,comments=1");
      config = writeConfig(tmp.dir, servers);
      editConfig(config, (c) => {
        c.jobs = c.jobs
          .filter((j) => j.name === "gh")
          .map((j) => ({ ...j, schedule: { every: "1h" } }));
      });
      served = await startServe(config, servers.env);
      tinypm = createTinypm({
        baseUrl: servers.tinypm.url,
        token: servers.tinypm.token,
        projectId: 1,
      });
      github = createTarget({
        type: "github",
        tokenEnv: "GITHUB_TOKEN",
        importApi: false,
        baseUrl: servers.github.url,
        owner: servers.github.owner,
        repo: servers.github.repo,
        token: servers.github.token,
      });
      // Everything works with plain forms: the dashboard runs no script.
      browser = await launchChromium(join(tmp.dir, "profile"), { javaScriptEnabled: false });
      page = await browser.newPage();
      page.on("request", (r) => requests.push(r.url()));
    });

    afterAll(async () => {
      await browser?.close();
      if (served !== undefined) {
        served.proc.kill("SIGTERM");
        await served.proc.done;
      }
      await Promise.allSettled([tinypm.close(), github.close()]);
      await servers.close();
      tmp.cleanup();
    });

    const jobRow = () => page.locator('tr[data-job="gh"]');

    it("shows the job with its last and next run, outcome and linked items", async () => {
      await settled(1);
      await page.goto(`${served!.url}/`);
      expect(await page.title()).toBe("tinypm-sync");
      const row = jobRow();
      const cells = row.locator("td");
      expect(await cells.nth(0).innerText()).toContain("gh");
      expect(await cells.nth(1).innerText()).toBe("idle");
      expect(await cells.nth(2).innerText()).toMatch(/^ok \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
      expect(await cells.nth(2).innerText()).toContain("6 created");
      // The next run is an hour after the startup run, with the schedule under it.
      const next = await cells.nth(4).locator("time").getAttribute("datetime");
      expect(Date.parse(next ?? "") - Date.now()).toBeGreaterThan(50 * 60_000);
      expect(await cells.nth(4).innerText()).toContain("every 1h");
      expect(await cells.nth(5).innerText()).toBe("3 stories, 3 tasks");
      expect(await row.locator("td[data-conflicts]").innerText()).toBe("0");
      expect(await page.locator("#conflicts + p").innerText()).toBe("No open conflicts.");
      // The style sheet is the only other thing the page loads, from the service itself.
      expect(requests.every((u) => u.startsWith(`${served!.url}/`))).toBe(true);
      expect(requests).toContain(`${served!.url}/dashboard.css`);
    });

    it("shows a field edited on both sides as a conflict; Take tinyPM and Sync now carry it over", async () => {
      const story = servers.tinypm.store.storiesOf(1)[0]!;
      const issues: { id: string; title: string }[] = [];
      for await (const i of github.list({ kind: "story" })) issues.push(i);
      const pair = issues.find((i) => i.title === story.name)!;
      expect(pair).toBeDefined();
      await tinypm.update(
        { kind: "story", id: String(story.id) },
        { set: { title: "Mine <tinyPM>" } },
      );
      await github.update({ kind: "story", id: pair.id }, { set: { title: "Theirs & target" } });

      // "Sync now" from the page: a plain form post, answered with a redirect and a note.
      await jobRow().getByRole("button", { name: "Sync now" }).click();
      await page.waitForURL(/\/\?flash=sync&job=gh$/);
      expect(await page.getByRole("status").innerText()).toBe("A run of job gh was asked for.");
      await settled(2);
      const { conflicts } = await api<ConflictsAnswer>("/api/conflicts");
      expect(conflicts).toEqual([
        expect.objectContaining({
          field: "title",
          tinypmValue: "Mine <tinyPM>",
          targetValue: "Theirs & target",
        }),
      ]);
      const id = conflicts[0]!.id;

      await page.goto(`${served!.url}/`);
      expect(await jobRow().locator("td[data-conflicts]").innerText()).toBe("1");
      const row = page.locator(`tr[data-conflict="${id}"]`);
      const cells = row.locator("td");
      expect(await cells.nth(2).innerText()).toBe("title");
      // The item: its title as last synced, and links to both sides (issue 32).
      expect(await cells.nth(1).locator("[data-title]").innerText()).toBe(story.name);
      const tinypmRoot = servers.tinypm.url.replace(/\/api$/, "");
      expect(
        await cells
          .nth(1)
          .getByRole("link", { name: `tinyPM story #${story.id}` })
          .getAttribute("href"),
      ).toBe(`${tinypmRoot}/userStory/show/${story.id}`);
      expect(
        await cells
          .nth(1)
          .getByRole("link", { name: `#${pair.id}`, exact: true })
          .getAttribute("href"),
      ).toBe(
        `${servers.github.url}/${servers.github.owner}/${servers.github.repo}/issues/${pair.id}`,
      );
      // The run that found it says `1 conflict`, not `1 conflicts`.
      const counted = await page.locator("#runs + table tbody tr td:nth-child(6)").allInnerTexts();
      expect(counted.some((t) => /(^|, )1 conflict$/.test(t))).toBe(true);
      expect(counted.join("\n")).not.toContain("1 conflicts");
      // Base, tinyPM and target values, as the report shows values (strings quoted).
      expect(await cells.nth(3).innerText()).toBe(JSON.stringify(story.name));
      expect(await cells.nth(4).innerText()).toBe('"Mine <tinyPM>"');
      expect(await cells.nth(5).innerText()).toBe('"Theirs & target"');

      await row.getByRole("button", { name: "Take tinyPM" }).click();
      await page.waitForURL(new RegExp(`/\\?flash=resolved&conflict=${id}&take=tinypm#conflicts$`));
      expect(await page.getByRole("status").innerText()).toBe(
        `Conflict #${id} resolved: tinyPM wins. The job's next run applies it.`,
      );
      expect(await page.locator(`tr[data-conflict="${id}"]`).count()).toBe(0);
      expect((await api<ConflictsAnswer>("/api/conflicts")).conflicts).toEqual([]);
      // Resolved, not applied yet: the next run writes tinyPM's value to GitHub.
      expect((await github.get({ kind: "story", id: pair.id }))?.title).toBe("Theirs & target");

      await jobRow().getByRole("button", { name: "Sync now" }).click();
      await page.waitForURL(/flash=sync/);
      await settled(3);
      expect((await github.get({ kind: "story", id: pair.id }))?.title).toBe("Mine <tinyPM>");
      expect((await tinypm.get({ kind: "story", id: String(story.id) }))?.title).toBe(
        "Mine <tinyPM>",
      );
      await page.goto(`${served!.url}/`);
      expect(await jobRow().locator("td[data-conflicts]").innerText()).toBe("0");
      expect(await jobRow().locator("td").nth(2).innerText()).toMatch(/^ok .*\n1 updated/);
    });

    it("opens a run's report from the list of runs", async () => {
      await page.goto(`${served!.url}/`);
      const newest = page.locator("#runs + table tbody tr").first();
      expect(await newest.locator("td").nth(6).innerText()).toBe("manual");
      await newest.locator("a").click();
      await page.waitForURL(/\/runs\/[^/]+$/);
      const text = await page.locator("body").innerText();
      expect(text).toContain("Mine <tinyPM>");
      expect(text).toMatch(/Updated/);
      // And back to the dashboard from the run's page (issue 32).
      await page.getByRole("link", { name: "← Dashboard" }).click();
      await page.waitForURL(`${served!.url}/`);
      expect(await page.title()).toBe("tinypm-sync");
    });

    it("refuses a form post without its CSRF token (403)", async () => {
      const res = await fetch(`${served!.url}/jobs/gh/sync`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "csrf=forged",
      });
      expect(res.status).toBe(403);
    });

    it("with a token: the login form lets a person in, the token never reaches the page", async () => {
      served!.proc.kill("SIGTERM");
      expect((await served!.proc.done).code).toBe(0);
      editConfig(config, (c) => {
        c.serve = { auth: { tokenEnv: "SERVE_TOKEN" } };
      });
      served = await startServe(config, { ...servers.env, SERVE_TOKEN: TOKEN });
      const bearer = { authorization: `Bearer ${TOKEN}` };
      await settled(1, bearer);

      await page.goto(`${served.url}/`);
      await page.waitForURL(/\/login$/);
      await page.getByLabel("Token").fill("not-the-token");
      await page.getByRole("button", { name: "Log in" }).click();
      await page.waitForURL(/\/login$/);
      expect(await page.getByRole("alert").innerText()).toBe("That token is not right.");

      await page.getByLabel("Token").fill(TOKEN);
      await page.getByRole("button", { name: "Log in" }).click();
      await page.waitForURL(new RegExp(`^${served.url}/$`));
      expect(await jobRow().locator("td").nth(2).innerText()).toMatch(/^ok /);
      expect(await page.content()).not.toContain(TOKEN);
      const cookies = await browser!.cookies(served.url);
      expect(cookies.map((c) => c.name)).toEqual(["tinypm_sync_session"]);
      expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: "Strict" });
      expect(cookies[0]!.value).not.toContain(TOKEN);

      // The session's forms work: Sync now asks for a run.
      await jobRow().getByRole("button", { name: "Sync now" }).click();
      await page.waitForURL(/flash=sync/);
      expect(await page.getByRole("status").innerText()).toBe("A run of job gh was asked for.");
      expect(await page.content()).not.toContain(TOKEN);
      await settled(2, bearer);

      await page.getByRole("button", { name: "Log out" }).click();
      await page.waitForURL(/\/login$/);
      await page.goto(`${served.url}/`);
      await page.waitForURL(/\/login$/);
      expect(served.proc.output().stderr).not.toContain(TOKEN);
    });
  },
);
