import { describe, expect, it } from "vitest";
import { planReport } from "../../test/fixtures/reports/plan.js";
import { renderChunks, renderReport } from "./render.js";
import type { Report } from "./types.js";

/** The plan fixture with its items repeated until its text report is thousands of lines. */
function largeReport(): Report {
  const report = planReport();
  const items = Array.from({ length: 150 }, (_, n) =>
    report.items.map((item) => ({ ...item, title: `${item.title} ${n}` })),
  ).flat();
  return { ...report, items };
}

describe("renderChunks", () => {
  it("gives the text report in pieces of whole lines that join into renderReport's text", () => {
    const report = largeReport();
    const opts = { verbose: true, color: true, targetName: "GitHub" };
    const chunks = [...renderChunks(report, "text", opts)];
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) expect(chunk.endsWith("\n")).toBe(true);
    expect(chunks.join("")).toBe(renderReport(report, "text", opts));
  });

  it.each(["json", "markdown", "html"] as const)("gives the %s report whole", (format) => {
    const report = largeReport();
    expect([...renderChunks(report, format)]).toEqual([renderReport(report, format)]);
  });
});
