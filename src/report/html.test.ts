import { describe, expect, it } from "vitest";
import { emptySyncReport } from "../../test/fixtures/reports/empty-sync.js";
import { hostileReport } from "../../test/fixtures/reports/hostile.js";
import { planReport } from "../../test/fixtures/reports/plan.js";
import { renderHtml } from "./html.js";

describe("renderHtml", () => {
  it("shows a <script> title as text, never as markup", () => {
    const html = renderHtml(hostileReport());
    expect(html).toContain(
      "<strong>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; | `rm -rf` @octocat #12</strong>",
    );
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain("<li>&lt;i&gt;mallory&lt;/i&gt;</li>");
    expect(html).toContain("<h1>Migration: &lt;b&gt;job&lt;/b&gt;</h1>");
    // The only script element is the report's own filter.
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(html).not.toContain("<img");
  });

  it("is self-contained: nothing is fetched from the network", () => {
    const html = renderHtml(planReport());
    expect(html).not.toMatch(/\b(src|href)=/);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/@import|url\(/);
    expect(html).toMatch(/^<!doctype html>/);
  });

  it("has a row per listed item, tagged with its action for the filter", () => {
    const html = renderHtml(planReport());
    const actions = Array.from(html.matchAll(/<tr class="\w+" data-action="(\w+)"/g), (m) => m[1]);
    expect(actions).toEqual([
      "update",
      "conflict",
      "create",
      "create",
      "create",
      "failed",
      "update",
      "adopt",
      "delete",
      "skip",
    ]);
    expect(html).toContain("2 unchanged items not listed.");
    expect(html).toContain(
      '<button type="button" data-filter="create" aria-pressed="false">Create (3)</button>',
    );
  });

  it("lists unchanged items when verbose", () => {
    expect(renderHtml(emptySyncReport(), { verbose: true })).toContain("Pay with card");
    expect(renderHtml(emptySyncReport())).toContain("<p>Nothing to do.</p>");
  });
});
