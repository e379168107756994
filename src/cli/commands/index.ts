import type { Command } from "commander";
import type { CliContext } from "../context.js";

/** Adds one command to the program. Each command lives in its own file beside this one. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;

/** A command by its name, and how to load its file (only the command run is loaded). */
export interface CommandEntry {
  readonly name: string;
  readonly load: () => Promise<RegisterCommand>;
}

/**
 * Every command of the tool, in the order `--help` lists them. Loaded on demand: a run of one
 * command does not load the modules of the others (`serve` its server, `sandbox` the sandboxes,
 * PostgreSQL clients, the HTML report…), which keeps the start of every run short.
 */
export const COMMANDS: readonly CommandEntry[] = [
  { name: "demo", load: async () => (await import("./demo.js")).registerDemo },
  { name: "check", load: async () => (await import("./check.js")).registerCheck },
  { name: "export", load: async () => (await import("./export.js")).registerExport },
  { name: "plan", load: async () => (await import("./plan.js")).registerPlan },
  { name: "migrate", load: async () => (await import("./migrate.js")).registerMigrate },
  { name: "apply", load: async () => (await import("./apply.js")).registerApply },
  { name: "sync", load: async () => (await import("./sync.js")).registerSync },
  { name: "verify", load: async () => (await import("./verify.js")).registerVerify },
  { name: "undo", load: async () => (await import("./undo.js")).registerUndo },
  { name: "serve", load: async () => (await import("./serve.js")).registerServe },
  { name: "status", load: async () => (await import("./status.js")).registerStatus },
  { name: "conflicts", load: async () => (await import("./conflicts.js")).registerConflicts },
  { name: "state", load: async () => (await import("./state.js")).registerState },
  { name: "users", load: async () => (await import("./users.js")).registerUsers },
  {
    name: "reference-server",
    load: async () => (await import("./reference-server.js")).registerReferenceServer,
  },
  { name: "sandbox", load: async () => (await import("./sandbox.js")).registerSandbox },
];
