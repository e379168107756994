/** The committed JSON Schema must be what the zod schema generates (run `npm run schemas`). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { mappingJsonSchema } from "../../../src/mapping/json-schema.js";

describe("schemas/mapping.schema.json", () => {
  it("is up to date with the zod schema", () => {
    const file = new URL("../../../schemas/mapping.schema.json", import.meta.url);
    const committed = readFileSync(file, "utf8");
    expect(committed, "stale: run `npm run build && npm run schemas`").toBe(
      `${JSON.stringify(mappingJsonSchema(), null, 2)}\n`,
    );
  });

  it("offers completion for rule keys and transform names", () => {
    const text = JSON.stringify(mappingJsonSchema());
    for (const word of [
      '"to"',
      '"transform"',
      '"neutralize-mentions"',
      '"inverse"',
      '"metadata"',
    ]) {
      expect(text).toContain(word);
    }
  });
});
