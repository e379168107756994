import { describe, expect, it } from "vitest";
import type { ProbeResult } from "../../core/tracker.js";
import { probeLine } from "./check.js";

const ok: ProbeResult = {
  system: "github",
  reachable: true,
  authenticated: true,
  projectVisible: true,
  canWrite: true,
  details: "GitHub at http://x, repository acme/widgets",
};

describe("probeLine", () => {
  it("passes a system that answers, accepts the token, shows the project and allows writes", () => {
    expect(probeLine(ok, ["GITHUB_TOKEN"])).toBe(`ok   ${ok.details}`);
  });

  it("names the code and the credentials' variable for a refused token", () => {
    expect(probeLine({ ...ok, authenticated: false }, ["GITHUB_TOKEN"])).toBe(
      `FAIL [auth_failed] ${ok.details} (credentials from $GITHUB_TOKEN)`,
    );
  });

  it("ends with the hint of the error the probe mapped, so the user knows what to do", () => {
    const hint = "Check the token in GITHUB_TOKEN: it may be expired, revoked or mistyped.";
    expect(probeLine({ ...ok, authenticated: false, hint }, ["GITHUB_TOKEN"])).toBe(
      `FAIL [auth_failed] ${ok.details} (credentials from $GITHUB_TOKEN) — hint: ${hint}`,
    );
    // A passing probe has no hint to show.
    expect(probeLine({ ...ok, hint }, ["GITHUB_TOKEN"])).toBe(`ok   ${ok.details}`);
  });

  it("asks for write permission only on a side the job writes to", () => {
    const readOnly = { ...ok, canWrite: false };
    expect(probeLine(readOnly, ["GITHUB_TOKEN"], true)).toMatch(/^FAIL \[permission_denied\]/);
    expect(probeLine(readOnly, ["GITHUB_TOKEN"], false)).toMatch(/^ok /);
  });

  it("does not blame the credentials when the host is unreachable", () => {
    expect(probeLine({ ...ok, reachable: false }, ["GITHUB_TOKEN"])).toBe(
      `FAIL [remote_unavailable] ${ok.details}`,
    );
  });

  it("keeps a code already in the details and does not repeat a named variable", () => {
    const details = "[auth_failed] refused; check $JIRA_TOKEN";
    expect(
      probeLine({ ...ok, reachable: false, authenticated: false, details }, [
        "JIRA_EMAIL",
        "JIRA_TOKEN",
      ]),
    ).toBe(`FAIL ${details} (credentials from $JIRA_EMAIL)`);
  });
});
