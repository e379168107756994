// Flat ESLint config: type-aware rules, and the layering of architecture.md enforced with
// no-restricted-imports (one block per layer).
import js from "@eslint/js";
import vitest from "@vitest/eslint-plugin";
import prettier from "eslint-config-prettier";
import globals from "globals";
import tseslint from "typescript-eslint";

const LAYERS = [
  "core",
  "adapters",
  "mapping",
  "sync",
  "gate",
  "state",
  "report",
  "cli",
  "config",
  "log",
  "reference-server",
  "sandboxes",
  "server-kit",
  "serve",
  "library",
];

/** A pattern that forbids importing the named layers (relative imports from anywhere in src). */
function forbid(layers, message) {
  return {
    regex: `(^|/)(${layers.join("|")})(/|\\.js$)`,
    message,
  };
}

function layer(files, allowed, extra = []) {
  const denied = LAYERS.filter((l) => !allowed.includes(l));
  return {
    files,
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            forbid(
              denied,
              `This layer may import only: ${allowed.join(", ") || "node and itself"} (architecture.md).`,
            ),
            ...extra,
          ],
        },
      ],
    },
  };
}

const otherAdapter = (name) => ({
  regex: `(^\\.\\./(?!${name}/)(tinypm|github|jira)/|adapters/(?!${name}/)(tinypm|github|jira)/)`,
  message: "Adapters never import each other (architecture.md).",
});

export default tseslint.config(
  {
    ignores: ["dist/**", "node_modules/**", "coverage/**", "bench/results/**", "test/fixtures/**"],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      "@typescript-eslint/only-throw-error": "error",
      "@typescript-eslint/prefer-promise-reject-errors": "error",
      "@typescript-eslint/restrict-template-expressions": [
        "error",
        { allowNumber: true, allowBoolean: true },
      ],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "no-restricted-exports": [
        "error",
        {
          restrictDefaultExports: {
            direct: true,
            named: true,
            defaultFrom: true,
            namedFrom: true,
            namespaceFrom: true,
          },
        },
      ],
      "no-console": "error",
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name='localeCompare'][arguments.length>1]",
          message:
            "localeCompare with a locale or options builds an ICU collator per call, whose memory stays until after the sort: make one Intl.Collator and use its compare.",
        },
      ],
      "no-restricted-properties": [
        "error",
        { object: "process", property: "exit", message: "Only src/cli/main.ts exits the process." },
        {
          object: "process",
          property: "env",
          message: "Only src/config/load.ts reads the environment.",
        },
      ],
    },
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ["eslint.config.js", "vitest.config.ts", "*.config.*"],
    rules: { "no-restricted-exports": "off" },
  },
  layer(["src/core/**"], ["core"]),
  layer(["src/adapters/tinypm/**"], ["core", "adapters"], [otherAdapter("tinypm")]),
  layer(["src/adapters/github/**"], ["core", "adapters"], [otherAdapter("github")]),
  layer(["src/adapters/jira/**"], ["core", "adapters"], [otherAdapter("jira")]),
  layer(["src/adapters/memory/**"], ["core", "adapters"], [otherAdapter("memory")]),
  layer(["src/mapping/**"], ["core", "mapping"]),
  layer(["src/state/**"], ["core", "state"]),
  layer(["src/gate/**"], ["core", "gate"]),
  layer(["src/report/**"], ["core", "report"]),
  layer(["src/log/**"], ["core", "log"]),
  layer(["src/config/**"], ["core", "config", "mapping", "adapters", "state"]),
  layer(["src/sync/**"], ["core", "sync", "mapping", "state", "gate", "report"]),
  // The library (src/index.ts, docs/library.md) runs jobs as the CLI does, without printing.
  layer(
    ["src/library/**"],
    ["library", "core", "config", "adapters", "mapping", "gate", "state", "sync", "report", "log"],
  ),
  layer(["src/index.ts"], ["library", "core", "config", "sync", "report"]),
  layer(["src/reference-server/**"], ["reference-server", "server-kit"]),
  layer(["src/sandboxes/**"], ["sandboxes", "server-kit"]),
  layer(["src/server-kit/**"], ["server-kit"]),
  layer(
    ["src/serve/**"],
    ["core", "serve", "config", "state", "report", "sync", "log", "server-kit"],
  ),
  {
    files: ["src/cli/**", "scripts/**", "bench/**"],
    rules: { "no-console": "off" },
  },
  {
    files: ["src/cli/main.ts"],
    rules: { "no-restricted-properties": "off" },
  },
  {
    files: ["src/config/load.ts"],
    rules: { "no-restricted-properties": ["error", { object: "process", property: "exit" }] },
  },
  {
    files: ["**/*.test.ts", "test/**", "bench/**", "scripts/**"],
    ...vitest.configs.recommended,
    rules: {
      ...vitest.configs.recommended.rules,
      "no-restricted-properties": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  prettier,
);
