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

  it("puts a plan's time estimate beside the summary cards, and counts what it does not list", () => {
    const report = {
      ...planReport(),
      estimatedDuration: {
        durationMs: 3_780_000,
        boundBy: "GitHub's 500 content writes per hour",
        text: "about 1 h 3 min, bound by GitHub's 500 content writes per hour",
      },
      tinypmRead: { complete: false, sections: [], fetched: 0, notRead: 11 },
    };
    const html = renderHtml(report);
    const estimate = html.indexOf(
      '<p class="estimate">Time the writes would take: about 1 h 3 min',
    );
    expect(estimate).toBeGreaterThan(html.indexOf('<section class="summary"'));
    expect(estimate).toBeLessThan(html.indexOf('<nav class="filter"'));
    expect(html.match(/class="estimate"/g)).toHaveLength(1);
    expect(html).toContain("11 not read this run (in closed iterations");
    expect(html).toContain(
      '<div class="stat" data-stat="not-read"><span class="n">11</span><span class="l">Not read this run</span></div>',
    );
  });

  it("counts foreign items on their own card, not among the unchanged", () => {
    const base = emptySyncReport();
    const foreign = (id: string) => ({
      kind: "story" as const,
      title: `Another tinyPM's issue ${id}`,
      action: "skip" as const,
      targetId: id,
      reason: "foreign",
      changes: [],
      conflicts: [],
      comments: 0,
      timeEntries: 0,
    });
    const unchanged = base.summary.unchanged;
    const report = {
      ...base,
      summary: { ...base.summary, unchanged: unchanged + 2 },
      items: [...base.items, foreign("77"), foreign("78")],
    };
    const html = renderHtml(report);
    expect(html).toContain(
      `<div class="stat" data-stat="unchanged"><span class="n">${unchanged}</span>`,
    );
    expect(html).toContain(
      '<div class="stat" data-stat="foreign"><span class="n">2</span><span class="l">Foreign (left alone)</span></div>',
    );
  });

  it("is self-contained: nothing is fetched from the network", () => {
    // Links to the items are anchors people follow; nothing else may name an address.
    const html = renderHtml(planReport()).replace(
      /<a class="link" href="https?:\/\/[^"]+" rel="noreferrer noopener">/g,
      "<a>",
    );
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

  it("names the fields a migrate rerun kept on the target", () => {
    expect(renderHtml(planReport())).toContain('<div class="kept">kept on GitHub: status</div>');
  });

  it("links items to tinyPM and the target, and lists what a create writes", () => {
    const html = renderHtml(planReport());
    expect(html).toContain(
      '<a class="link" href="https://github.com/acme/shop/issues/34" rel="noreferrer noopener">GitHub #34</a>',
    );
    expect(html).toContain(
      '<a class="link" href="http://tinypm.example/tinypm/userStory/show/12" rel="noreferrer noopener">tinyPM story #12</a>',
    );
    expect(html).toContain("<caption>Would write</caption>");
    expect(html).toContain('<td>milestone</td><td><span class="new" title="&quot;Sprint 4&quot;">');
  });

  it("links only to http(s) addresses: a javascript: link is dropped", () => {
    const report = planReport();
    const [first, ...rest] = report.items;
    const bad = { ...first!, links: { target: "javascript:alert(1)" } };
    const html = renderHtml({ ...report, items: [bad, ...rest] });
    expect(html).not.toContain("javascript:");
  });

  it("lists unchanged items when verbose", () => {
    expect(renderHtml(emptySyncReport(), { verbose: true })).toContain("Pay with card");
    expect(renderHtml(emptySyncReport())).toContain("<p>Nothing to do.</p>");
  });
});
