/**
 * The JSON Schema of mapping files (`schemas/mapping.schema.json`), generated from the zod schema
 * so editors complete and check mapping files. Regenerate with `npm run schemas`.
 */
import { z } from "zod";
import { mappingSpecSchema } from "./schema.js";

/** The JSON Schema of a mapping file. */
export function mappingJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(mappingSpecSchema, { target: "draft-2020-12", io: "input", reused: "ref" }),
    $id: "https://github.com/tinypm-sync/tinypm-sync/schemas/mapping.schema.json",
    title: "tinypm-sync mapping",
  };
}
