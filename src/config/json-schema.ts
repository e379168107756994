import { z } from "zod";
import { ConfigSchema } from "./schema.js";

/** The JSON Schema of the config file (for editors), generated from the zod schema. */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ConfigSchema, { io: "input", unrepresentable: "any" }),
    $id: "https://github.com/tinypm-sync/tinypm-sync/schemas/config.schema.json",
    title: "tinypm-sync configuration",
  };
}
