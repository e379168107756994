import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { registerApply } from "./apply.js";
import { registerCheck } from "./check.js";
import { registerConflicts } from "./conflicts.js";
import { registerDemo } from "./demo.js";
import { registerExport } from "./export.js";
import { registerMigrate } from "./migrate.js";
import { registerPlan } from "./plan.js";
import { registerReferenceServer } from "./reference-server.js";
import { registerSandbox } from "./sandbox.js";
import { registerState } from "./state.js";
import { registerServe } from "./serve.js";
import { registerStatus } from "./status.js";
import { registerSync } from "./sync.js";
import { registerUsers } from "./users.js";
import { registerUndo } from "./undo.js";
import { registerVerify } from "./verify.js";

/** Adds one command to the program. Each command lives in its own file beside this one. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;

/** Every command of the tool, in the order `--help` lists them. */
export const COMMANDS: readonly RegisterCommand[] = [
  registerDemo,
  registerCheck,
  registerExport,
  registerPlan,
  registerMigrate,
  registerApply,
  registerSync,
  registerVerify,
  registerUndo,
  registerServe,
  registerStatus,
  registerConflicts,
  registerState,
  registerUsers,
  registerReferenceServer,
  registerSandbox,
];
