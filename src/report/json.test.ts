import { readFileSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import { emptySyncReport } from "../../test/fixtures/reports/empty-sync.js";
import { hostileReport } from "../../test/fixtures/reports/hostile.js";
import { planReport } from "../../test/fixtures/reports/plan.js";
import { renderJson } from "./json.js";
import { renderReport } from "./render.js";
import { reportItemSchema, reportJsonSchema, reportSchema } from "./schema.js";
import { REPORT_SCHEMA_VERSION, type Report, type ReportItem } from "./types.js";

describe("renderJson", () => {
  it.each([
    ["a plan", planReport()],
    ["an empty sync", emptySyncReport()],
    ["a report with hostile titles", hostileReport()],
  ])("renders %s as JSON the schema accepts, unchanged", (_, report) => {
    const json = JSON.parse(renderJson(report)) as unknown;
    const parsed = reportSchema.safeParse(json);
    expect(parsed.error).toBeUndefined();
    expect(json).toEqual(report);
  });

  it("writes keys in the schema's order, whatever order the report was built in", () => {
    const { notes, items, runId, ...rest } = emptySyncReport();
    const text = renderJson({ notes, items, ...rest, runId });
    expect(Object.keys(JSON.parse(text) as object).slice(0, 3)).toEqual([
      "schemaVersion",
      "runId",
      "job",
    ]);
  });

  it("carries the schema version", () => {
    expect(JSON.parse(renderReport(planReport(), "json"))).toMatchObject({
      schemaVersion: REPORT_SCHEMA_VERSION,
    });
  });

  it("is rejected by the schema when a required field is missing or mistyped", () => {
    const { runId: _, ...noRunId } = planReport();
    expect(reportSchema.safeParse(noRunId).success).toBe(false);
    expect(reportSchema.safeParse({ ...planReport(), schemaVersion: 2 }).success).toBe(false);
    const item = { ...planReport().items[0], action: "rename" };
    expect(reportSchema.safeParse({ ...planReport(), items: [item] }).success).toBe(false);
  });
});

describe("reportSchema", () => {
  it("stays in step with the Report type: same fields, and what it accepts is a Report", () => {
    type Parsed = z.output<typeof reportSchema>;
    expectTypeOf<Parsed>().toExtend<Report>();
    expectTypeOf<keyof Parsed>().toEqualTypeOf<keyof Report>();
    expectTypeOf<keyof z.output<typeof reportItemSchema>>().toEqualTypeOf<keyof ReportItem>();
    const itemKeys = new Set(planReport().items.flatMap((i) => Object.keys(i)));
    expect([...itemKeys].sort()).toEqual(Object.keys(reportItemSchema.shape).sort());
  });
});

describe("schemas/report.schema.json", () => {
  it("is up to date with the zod schema (run `npm run build && npm run schemas` after changing it)", () => {
    const committed = JSON.parse(
      readFileSync(new URL("../../schemas/report.schema.json", import.meta.url), "utf8"),
    ) as unknown;
    expect(committed).toEqual(reportJsonSchema());
  });

  it("is a versioned draft 2020-12 schema with an $id", () => {
    expect(reportJsonSchema()).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: expect.stringContaining("report.schema.json") as unknown,
      properties: { schemaVersion: { const: REPORT_SCHEMA_VERSION } },
    });
  });
});
