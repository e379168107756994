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
    expect(body).toMatch(/^Hello\nworld\n\n<!-- tinypm-sync:v2 \{.*\} -->$/);
    expect(parseIssueBody(body)).toEqual({
      description: "Hello\nworld",
      block: { marker, meta: { colour: "RED", n: 3 } },
    });
  });

  it("writes version 2 with instance, project, both ids and digests, and still reads version 1", () => {
    const v2 = {
      ...marker,
      instance: "0123456789abcdef",
      project: "1",
      tinypmId: "7",
      base: { title: "1a2b3c4d" },
    };
    const body = withIssueMarker("Hi", { marker: v2, meta: {} });
    expect(parseIssueBody(body).block?.marker).toEqual(v2);
    const v1 = `Old text\n\n<!-- tinypm-sync:v1 {"job":"j","origin":"tinypm","originKind":"story","originId":"4","meta":{"a":1}} -->`;
    expect(parseIssueBody(v1)).toEqual({
      description: "Old text",
      block: {
        marker: { job: "j", origin: "tinypm", originKind: "story", originId: "4" },
        meta: { a: 1 },
      },
    });
  });

  it("never writes an email or a full name into the block", () => {
    const meta = {
      acceptingUser: { id: "5", login: "erin", name: "Erin Example", email: "erin@example.com" },
    };
    const body = withIssueMarker("x", { marker, meta });
    expect(body).not.toContain("erin@example.com");
    expect(body).not.toContain("Erin Example");
    expect(parseIssueBody(body).block?.meta).toEqual({ acceptingUser: { id: "5", login: "erin" } });
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
