import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { editConfig, startServe, type Served } from "./serve-support.js";
import { runCliProcess } from "./spawn.js";

const TOKEN = `dash-${randomUUID()}`;
let servers: Servers;
let config: string;
let served: Served;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=1,tasks=0,comments=0");
  config = writeConfig(tmp.dir, servers);
  editConfig(config, (c) => {
    c.jobs = c.jobs.filter((j) => j.name === "gh");
    c.serve = { auth: { tokenEnv: "SERVE_TOKEN" } };
  });
  served = await startServe(config, { ...servers.env, SERVE_TOKEN: TOKEN });
});
afterAll(async () => {
  served.proc.kill("SIGTERM");
  await served.proc.done;
  await servers.close();
  tmp.cleanup();
});

describe("serve's access control", () => {
  it("refuses to bind beyond 127.0.0.1 without a dashboard token (exit 2, nothing served)", async () => {
    const r = await runCliProcess(
      ["serve", "--config", config, "--host", "0.0.0.0", "--port", "0"],
      {
        env: servers.env,
      },
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("SERVE_TOKEN (serve.auth.tokenEnv) is not set");
  });

  it("asks for the token on the dashboard, /api and /metrics, not on health or webhooks", async () => {
    expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${served.url}/api/jobs`)).status).toBe(401);
    expect((await fetch(`${served.url}/metrics`)).status).toBe(401);
    expect(
      (await fetch(`${served.url}/api/jobs`, { headers: { authorization: "Bearer nope" } })).status,
    ).toBe(401);
    const page = await fetch(`${served.url}/`, { redirect: "manual" });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/login");
    const ok = await fetch(`${served.url}/api/jobs`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(ok.status).toBe(200);
    // A webhook route answers by its signature (none configured here), never by the token.
    const hook = await fetch(`${served.url}/webhooks/github`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "x-github-event": "issues" },
      body: "{}",
    });
    expect(hook.status).toBe(401);
  });

  it("logs in with the form, sets a session cookie that is not the token, and keeps the token out of pages", async () => {
    const wrong = await fetch(`${served.url}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "token=wrong",
    });
    expect(wrong.status).toBe(401);
    const login = await fetch(`${served.url}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: TOKEN }).toString(),
      redirect: "manual",
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
    expect(cookie).toMatch(/^tinypm_sync_session=[0-9a-f]{48}$/);
    expect(cookie).not.toContain(TOKEN);
    const page = await fetch(`${served.url}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('data-job="gh"');
    expect(html).not.toContain(TOKEN);
    const metrics = await (await fetch(`${served.url}/metrics`, { headers: { cookie } })).text();
    expect(metrics).toContain("tinypm_sync_runs_total");
    expect(metrics).not.toContain(TOKEN);
    // A form post without the page's CSRF token is refused.
    const forged = await fetch(`${served.url}/jobs/gh/sync`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: "csrf=forged",
    });
    expect(forged.status).toBe(403);
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1];
    expect(csrf).toBeDefined();
    const crossSite = await fetch(`${served.url}/jobs/gh/sync`, {
      method: "POST",
      headers: {
        cookie,
        origin: "http://evil.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: `csrf=${csrf!}`,
    });
    expect(crossSite.status).toBe(403);
    const now = await fetch(`${served.url}/jobs/gh/sync`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: `csrf=${csrf!}`,
      redirect: "manual",
    });
    expect(now.status).toBe(303);
  });

  it("never logs the token", async () => {
    served.proc.kill("SIGTERM");
    const r = await served.proc.done;
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain(TOKEN);
  });
});
