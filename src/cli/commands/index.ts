import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { registerReferenceServer } from "./reference-server.js";
import { registerSandbox } from "./sandbox.js";

/** Adds one command to the program. Each command lives in its own file beside this one. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;

/** Every command of the tool, in the order `--help` lists them. */
export const COMMANDS: readonly RegisterCommand[] = [registerReferenceServer, registerSandbox];
