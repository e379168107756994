import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Marker } from "../../core/model.js";
import {
  commentKey,
  parseCommentBody,
  parseIssueBody,
  withCommentMarker,
  withIssueMarker,
} from "./marker.js";

const marker: Marker = { job: "widgets", origin: "tinypm", originKind: "story", originId: "42" };

describe("issue marker", () => {
  it("round-trips description, marker and metadata", () => {
    const body = withIssueMarker("Hello\nworld", { marker, meta: { colour: "RED", n: 3 } });
    expect(body).toMatch(/^Hello\nworld\n\n<!-- tinypm-sync:v1 \{.*\} -->$/);
    expect(parseIssueBody(body)).toEqual({
      description: "Hello\nworld",
      block: { marker, meta: { colour: "RED", n: 3 } },
    });
  });

  it("never lets --> appear inside the block, whatever the metadata holds", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (text, value) => {
        const body = withIssueMarker("x", { marker, meta: { value, "a-->b": text } });
        const inner = body.slice(body.indexOf("<!--") + 4, body.lastIndexOf("-->"));
        expect(inner).not.toContain("-->");
        expect(parseIssueBody(body).block?.meta).toEqual({ value, "a-->b": text });
      }),
    );
  });

  it("leaves a body without a block untouched", () => {
    expect(parseIssueBody("plain <!-- comment --> text")).toEqual({
      description: "plain <!-- comment --> text",
    });
    expect(parseIssueBody(null)).toEqual({ description: "" });
  });

  it("ignores a block with an invalid marker", () => {
    const body = 'x\n\n<!-- tinypm-sync:v1 {"job":1} -->';
    expect(parseIssueBody(body).block).toBeUndefined();
  });

  it("writes only the block for an empty description", () => {
    const body = withIssueMarker("", { marker, meta: {} });
    expect(body.startsWith("<!--")).toBe(true);
    expect(parseIssueBody(body).description).toBe("");
  });
});

describe("comment marker", () => {
  it("round-trips text and key", () => {
    const key = commentKey({ author: "alice", createdAt: "2024-01-02T03:04:05Z", body: "hi" });
    const body = withCommentMarker("hi", { job: "j", origin: "tinypm", originId: "42", key });
    expect(parseCommentBody(body)).toEqual({
      text: "hi",
      block: { job: "j", origin: "tinypm", originId: "42", key },
    });
  });

  it("gives the same key for the same content only", () => {
    const a = commentKey({ author: "alice", createdAt: "t", body: "hi" });
    expect(commentKey({ author: "alice", createdAt: "t", body: "hi" })).toBe(a);
    expect(commentKey({ author: "bob", createdAt: "t", body: "hi" })).not.toBe(a);
  });
});
