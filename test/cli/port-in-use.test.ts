import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPort, MAPPINGS, tempDir } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/** A plain TCP listener on 127.0.0.1 holding a port, so that the command's listen is refused. */
let holder: Server;
let port: number;
const tmp = tempDir();

beforeAll(async () => {
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  const address = holder.address();
  port = typeof address === "object" && address !== null ? address.port : 0;
});
afterAll(async () => {
  await new Promise<void>((resolve) =>
    holder.close(() => {
      resolve();
    }),
  );
  tmp.cleanup();
});

/** What every refused listen must say: usage (exit 2), the address, the port, what to do. */
function refusal(what: string) {
  return {
    code: 2,
    stdout: "",
    stderr: expect.stringContaining(
      `error [usage]: ${what} cannot listen on 127.0.0.1:${port}: port ${port} is already in use (EADDRINUSE).\n` +
        `  hint: Stop the process that holds port ${port}, or choose another with --port`,
    ) as unknown,
  };
}

describe("a command whose port is already in use", () => {
  it("sandbox github: a usage error naming the port, exit 2", async () => {
    const r = await runCliProcess(["sandbox", "github", "--port", String(port)]);
    expect(r).toEqual(refusal("The GitHub sandbox"));
    expect(r.stderr).not.toMatch(/internal|bug/);
  });

  it("sandbox jira: a usage error naming the port, exit 2", async () => {
    const r = await runCliProcess(["sandbox", "jira", "--port", String(port)]);
    expect(r).toEqual(refusal("The Jira sandbox"));
    expect(r.stderr).not.toMatch(/internal|bug/);
  });

  it("reference-server: a usage error naming the port, exit 2", async () => {
    const r = await runCliProcess(["reference-server", "--port", String(port)]);
    expect(r).toEqual(refusal("The tinyPM reference server"));
    expect(r.stderr).not.toMatch(/internal|bug/);
  });

  it("serve: a usage error naming the port, exit 2", async () => {
    // No system is contacted before the listen: the config may point at a closed port.
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const config = join(tmp.dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        tinypm: { baseUrl: nowhere, tokenEnv: "TINYPM_TOKEN" },
        targets: {
          github: {
            type: "github",
            baseUrl: nowhere,
            owner: "o",
            repo: "r",
            tokenEnv: "GITHUB_TOKEN",
          },
        },
        jobs: [
          {
            name: "gh",
            tinypmProject: 1,
            target: "github",
            mapping: join(MAPPINGS, "github.yaml"),
            direction: "both",
          },
        ],
        state: { path: join(tmp.dir, "state.db") },
      }),
    );
    const r = await runCliProcess(["serve", "--config", config, "--port", String(port)], {
      env: { TINYPM_TOKEN: "t".repeat(32), GITHUB_TOKEN: "ghp_port_test" },
    });
    expect(r).toEqual(refusal("serve"));
    expect(r.stderr).not.toMatch(/internal|bug/);
  });
});
