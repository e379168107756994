import { describe, expect, it } from "vitest";
import { PayloadInvalidError } from "../../core/errors.js";
import type { UnreadableItem } from "../../core/tracker.js";
import { withIssueMarker } from "./marker.js";
import { issueIdentity as githubIdentity, issueOrUnreadable } from "./unreadable.js";

const invalid = new PayloadInvalidError(
  "GitHub issues.listForRepo answered an unexpected payload: state: Invalid option",
  { system: "github", operation: "issues.listForRepo" },
);

describe("an issue that fails validation, one of many", () => {
  it("is named by its number, kind and title, read without the schema", () => {
    expect(githubIdentity({ number: 12, title: "Checkout", state: 42 })).toEqual({
      kind: "story",
      id: "12",
      title: "Checkout",
    });
    expect(githubIdentity({ number: 13, parent_issue_url: "https://x/issues/1" })).toEqual({
      kind: "task",
      id: "13",
    });
    // No parent: the kind its marker names, as the issue would read (map.ts).
    const body = withIssueMarker("Text", {
      marker: { job: "gh", origin: "tinypm", originKind: "task", originId: "5" },
      meta: {},
    });
    expect(githubIdentity({ number: 14, body, state: 42 })).toMatchObject({ kind: "task" });
    expect(githubIdentity({ number: "12" })).toBeUndefined();
    expect(githubIdentity(null)).toBeUndefined();
  });

  it("is handed to the caller with an error naming the issue, and left out", async () => {
    const got: UnreadableItem[] = [];
    const r = await issueOrUnreadable<string>(
      { kind: "story", id: "12", title: "Checkout" },
      (u) => {
        got.push(u);
      },
      () => {
        throw invalid;
      },
    );
    expect(r).toBeUndefined();
    expect(got.map((u) => [u.id, u.error.code, u.error.message])).toEqual([
      [
        "12",
        "payload_invalid",
        'GitHub issue #12 "Checkout" cannot be read (issues.listForRepo): state: Invalid option',
      ],
    ]);
  });

  it("fails the read when nothing names the issue, no caller takes it, or the error is not its own", async () => {
    const fail = () => {
      throw invalid;
    };
    await expect(issueOrUnreadable(undefined, () => undefined, fail)).rejects.toBe(invalid);
    await expect(issueOrUnreadable({ kind: "story", id: "1" }, undefined, fail)).rejects.toBe(
      invalid,
    );
    const down = new Error("socket hang up");
    await expect(
      issueOrUnreadable(
        { kind: "story", id: "1" },
        () => undefined,
        () => {
          throw down;
        },
      ),
    ).rejects.toBe(down);
  });
});
