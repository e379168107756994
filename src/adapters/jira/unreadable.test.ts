import { describe, expect, it } from "vitest";
import { PayloadInvalidError } from "../../core/errors.js";
import type { UnreadableItem } from "../../core/tracker.js";
import { issueIdentity, issueOrUnreadable } from "./unreadable.js";

describe("a Jira issue that fails validation, one of a search page", () => {
  it("is named by its key, kind and summary, read without the schema", () => {
    expect(
      issueIdentity({ key: "WID-4", fields: { summary: "S", issuetype: { subtask: true } } }),
    ).toEqual({ kind: "task", id: "WID-4", title: "S" });
    expect(issueIdentity({ key: "WID-5", fields: "broken" })).toEqual({
      kind: "story",
      id: "WID-5",
    });
    expect(issueIdentity({ key: 4, fields: {} })).toBeUndefined();
    expect(issueIdentity({ key: "not a key" })).toBeUndefined();
  });

  it("is handed to the caller with an error naming the issue and the field", async () => {
    const got: UnreadableItem[] = [];
    const invalid = new PayloadInvalidError(
      "Jira answered POST /rest/api/3/search/jql for WID-4 with an unexpected payload (fields.status: Invalid input).",
      { system: "jira", operation: "POST /rest/api/3/search/jql", id: "WID-4" },
    );
    const r = await issueOrUnreadable<string>(
      { kind: "story", id: "WID-4", title: "Checkout" },
      (u) => {
        got.push(u);
      },
      () => {
        throw invalid;
      },
    );
    expect(r).toBeUndefined();
    expect(got.map((u) => u.error.message)).toEqual([
      'Jira issue WID-4 "Checkout" cannot be read (POST /rest/api/3/search/jql): fields.status: Invalid input',
    ]);
  });
});
