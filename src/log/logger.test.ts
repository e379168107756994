import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";

function sink(): { stream: Writable; lines: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString("utf8"));
      done();
    },
  });
  return { stream, lines: () => chunks.join("").split("\n").filter(Boolean) };
}

describe("createLogger", () => {
  it("writes JSON lines with the bindings, to the given stream", () => {
    const out = sink();
    createLogger({ stream: out.stream, bindings: { runId: "r1" } })
      .child({ system: "jira" })
      .info({ n: 3 }, "read page");
    const [line] = out.lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(line).toMatchObject({ level: 30, runId: "r1", system: "jira", n: 3, msg: "read page" });
  });

  it("redacts credentials by path and secret values wherever they appear", () => {
    const out = sink();
    const log = createLogger({ stream: out.stream, secrets: ["s3cr3t-token"] });
    log.warn(
      { headers: { authorization: "token abc" }, url: "http://x/?token=s3cr3t-token" },
      "failed with s3cr3t-token",
    );
    const text = out.lines().join("\n");
    expect(text).not.toContain("s3cr3t-token");
    expect(text).not.toContain("token abc");
    expect(text).toContain("[REDACTED]");
  });

  it("prints readable lines in pretty format", () => {
    const out = sink();
    createLogger({ stream: out.stream, format: "pretty" })
      .child({ system: "github" })
      .warn({ waitMs: 1200 }, "rate limited");
    expect(out.lines()[0]).toMatch(/^\d\d:\d\d:\d\d WARN {2}\[github\] rate limited waitMs=1200$/);
  });

  it("honours the level", () => {
    const out = sink();
    const log = createLogger({ stream: out.stream, level: "warn" });
    log.info("hidden");
    log.error("shown");
    expect(out.lines()).toHaveLength(1);
  });
});
