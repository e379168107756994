/**
 * A self-hosted Jira Data Center site behind TLS with a certificate from the company's own CA
 * (`targets.jira.caFile`): a loopback HTTPS proxy, its certificate signed by the test CA in
 * test/fixtures/tls, serves the DC sandbox under the context path `/jira`. With the CA file the
 * adapter works over HTTPS; without it the failure names the certificate and the option to set.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import { RemoteUnavailableError } from "../../src/core/errors.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";

const fixture = (name: string): string =>
  fileURLToPath(new URL(`../fixtures/tls/${name}`, import.meta.url));
const CA_FILE = fixture("ca.pem");

describe("Jira adapter on Data Center over TLS with a CA file", () => {
  let sandbox: JiraSandbox;
  let proxy: Server;
  let base = "";
  const seen: string[] = [];
  beforeAll(async () => {
    sandbox = await startJiraSandbox({ deployment: "datacenter" });
    proxy = createServer(
      { key: readFileSync(fixture("server-key.pem")), cert: readFileSync(fixture("server.pem")) },
      (req, res) => {
        const path = req.url ?? "/";
        seen.push(`${req.method ?? "GET"} ${path}`);
        if (!path.startsWith("/jira/")) {
          res.writeHead(404).end();
          return;
        }
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          const headers = Object.fromEntries(
            Object.entries(req.headers).filter(
              (e): e is [string, string] => typeof e[1] === "string" && e[0] !== "host",
            ),
          );
          const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
          void fetch(`${sandbox.url}${path.slice("/jira".length)}`, {
            method: req.method ?? "GET",
            headers,
            ...(body !== undefined && { body }),
          }).then(async (answer) => {
            const text = Buffer.from(await answer.arrayBuffer());
            res.writeHead(answer.status, { "content-type": "application/json" }).end(text);
          });
        });
      },
    );
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const address = proxy.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    base = `https://127.0.0.1:${port}/jira`;
  });
  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
    await sandbox.close();
  });

  const tracker = (caFile?: string) =>
    createJiraTracker({
      baseUrl: base,
      email: "",
      token: sandbox.token,
      tokenEnv: "JIRA_PAT",
      projectKey: sandbox.projectKey,
      deployment: "datacenter",
      ...(caFile !== undefined && { caFile }),
    });

  it("creates and reads a story over HTTPS when caFile names the CA that signed the site", async () => {
    const jira = tracker(CA_FILE);
    try {
      const created = await jira.create({
        kind: "story",
        title: "Behind our own CA",
        status: "To Do",
        assignees: [],
        labels: [],
      });
      expect((await jira.get({ kind: "story", id: created.id }))?.title).toBe("Behind our own CA");
    } finally {
      await jira.close();
    }
    expect(seen.some((s) => s.startsWith("POST /jira/rest/api/2/issue"))).toBe(true);
  });

  it("without caFile fails on the certificate, not as a passing outage, and says to set caFile", async () => {
    const before = seen.length;
    const jira = tracker();
    try {
      const error = await jira.get({ kind: "story", id: "WID-1" }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RemoteUnavailableError);
      const failure = error as RemoteUnavailableError;
      expect(failure.transient).toBe(false);
      expect(failure.message).toContain(base);
      expect(failure.message).toMatch(/certificate/i);
      expect(failure.hint).toContain("caFile");
    } finally {
      await jira.close();
    }
    // The TLS handshake failed: no request reached the site.
    expect(seen.length).toBe(before);
  });

  it("names a CA file it cannot read, and the option", () => {
    const missing = fixture("no-such-ca.pem");
    expect(() => tracker(missing)).toThrow(
      `cannot read the Jira CA file ${missing} (targets.jira.caFile)`,
    );
  });
});
