// Writes the JSON Schemas in schemas/ from the zod schemas in dist/ (needs a build first:
// `npm run build && npm run schemas`). Each entry is one schema file: add a new schema as another
// entry. `--check` exits 1 when a file is stale instead of writing it.
import { readFileSync, writeFileSync } from "node:fs";

const SCHEMAS = [
  {
    file: new URL("../schemas/mapping.schema.json", import.meta.url),
    generate: async () => (await import("../dist/mapping/json-schema.js")).mappingJsonSchema(),
  },
  {
    file: new URL("../schemas/config.schema.json", import.meta.url),
    generate: async () => (await import("../dist/config/json-schema.js")).configJsonSchema(),
  },
  {
    file: new URL("../schemas/report.schema.json", import.meta.url),
    generate: async () => (await import("../dist/report/schema.js")).reportJsonSchema(),
  },
  {
    file: new URL("../schemas/run-summary.schema.json", import.meta.url),
    generate: async () => (await import("../dist/cli/json-output.js")).runSummaryJsonSchema(),
  },
  {
    file: new URL("../schemas/serve-api.schema.json", import.meta.url),
    generate: async () => (await import("../dist/serve/api-routes.js")).serveApiJsonSchema(),
  },
  {
    file: new URL("../schemas/status.schema.json", import.meta.url),
    generate: async () => (await import("../dist/cli/json-output.js")).statusJsonSchema(),
  },
];

/** The exact text written for a schema (tests compare against the same format). */
function render(schema) {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

function current(file) {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

const check = process.argv.includes("--check");
let stale = 0;
for (const { file, generate } of SCHEMAS) {
  const text = render(await generate());
  if (current(file) === text) continue;
  if (check) {
    stale += 1;
    console.error(`stale: ${file.pathname} (run npm run build && npm run schemas)`);
  } else {
    writeFileSync(file, text);
    console.log(`wrote ${file.pathname}`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;
