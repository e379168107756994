import { describe, expect, it } from "vitest";
import { foreignAnswer } from "./foreign-answer.js";

describe("foreignAnswer", () => {
  it("takes XML, with or without a content type, and empty answers", () => {
    expect(foreignAnswer("application/xml;charset=UTF-8", "<error/>")).toBeUndefined();
    expect(foreignAnswer("text/xml", "<project/>")).toBeUndefined();
    expect(foreignAnswer(undefined, "<?xml version='1.0'?><a/>")).toBeUndefined();
    expect(foreignAnswer("text/plain", "")).toBeUndefined();
  });

  it("names what came instead: an HTML page, JSON, a body that is not XML", () => {
    expect(foreignAnswer("text/html; charset=utf-8", "<p>hi</p>")).toBe("an HTML page");
    expect(foreignAnswer("application/xml", "  <!DOCTYPE html><html>")).toBe("an HTML page");
    expect(foreignAnswer("application/json", '{"message":"no"}')).toBe("application/json");
    expect(foreignAnswer(undefined, "Not Found")).toBe("a body that is not XML");
  });
});
