import { Option } from "commander";
import { UsageError } from "../../core/errors.js";
import { parseFaultSpec } from "../../server-kit/faults.js";
import { DatasetError } from "../../reference-server/dataset.js";
import { PRESETS, parseGenerateSpec } from "../../reference-server/generate.js";
import type { ReferenceServerOptions } from "../../reference-server/index.js";
import { writeLine } from "../context.js";
import { listenOn } from "../listen-error.js";
import type { RegisterCommand } from "./index.js";

interface Flags {
  host: string;
  port: string;
  token?: string;
  generate?: string;
  dataset?: string;
  seed: string;
  apiVersion: "2.6" | "2.5";
  faults?: string;
  apiDisabled?: boolean;
  maxBodyBytes?: string;
}

function integer(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

/** Turns the flags into server options; every bad value is a UsageError naming the valid choices. */
export function referenceServerOptions(flags: Flags): ReferenceServerOptions {
  if (flags.generate !== undefined && flags.dataset !== undefined) {
    throw new UsageError("--generate and --dataset cannot be used together", {
      hint: "Pick one source of data.",
    });
  }
  if (flags.generate !== undefined) {
    try {
      parseGenerateSpec(flags.generate);
    } catch (error) {
      throw new UsageError(`--generate: ${(error as Error).message}`, {
        hint: `Presets: ${Object.keys(PRESETS).join(", ")}; or stories=N,tasks=M,comments=K.`,
      });
    }
  }
  if (flags.faults !== undefined) {
    try {
      parseFaultSpec(flags.faults);
    } catch (error) {
      throw new UsageError(`--faults: ${(error as Error).message}`, {
        hint: "Example: --faults '500:0.1,429=2:0.05@POST /userstory/*,latency=50'.",
      });
    }
  }
  return {
    host: flags.host,
    port: integer("--port", flags.port, 0, 65535),
    token: flags.token,
    generate: flags.generate,
    dataset: flags.dataset,
    seed: integer("--seed", flags.seed, 0, 2 ** 32 - 1),
    apiVersion: flags.apiVersion,
    faults: flags.faults,
    apiDisabled: flags.apiDisabled === true,
    maxBodyBytes:
      flags.maxBodyBytes === undefined
        ? undefined
        : integer("--max-body-bytes", flags.maxBodyBytes, 1, 2 ** 31),
  };
}

export const registerReferenceServer: RegisterCommand = (program, ctx) => {
  program
    .command("reference-server")
    .description("run the bundled tinyPM 2.6.1-compatible XML API server (until SIGINT/SIGTERM)")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port (0 = any free port)", "0")
    .option("--token <token>", "API token (default: a random 32-hex token, printed)")
    .option("--generate <spec>", "empty|small|medium|large or stories=N,tasks=M,comments=K")
    .option("--dataset <file>", "load the data from a JSON dataset file")
    .option("--seed <n>", "generator and fault seed", "1")
    .addOption(
      new Option("--api-version <version>", "API version to serve")
        .choices(["2.6", "2.5"])
        .default("2.6"),
    )
    .option("--faults <spec>", "fault injection, e.g. '500:0.1,latency=50@GET /userstory/*'")
    .option("--api-disabled", "answer every API request with 403, as when the API is off")
    .option("--max-body-bytes <n>", "request body limit (default 1048576)")
    .action(async (flags: Flags) => {
      const options = referenceServerOptions(flags);
      // Loaded by this command only: every other command starts without the server.
      const { startReferenceServer } = await import("../../reference-server/index.js");
      let server;
      try {
        server = await listenOn(
          {
            what: "The tinyPM reference server",
            host: options.host ?? "127.0.0.1",
            port: options.port ?? 0,
          },
          () => startReferenceServer(options),
        );
      } catch (error) {
        if (error instanceof DatasetError) {
          throw new UsageError(`--dataset: ${error.message}`, {
            hint: "See docs/reference-server.md for the dataset format.",
          });
        }
        throw error;
      }
      writeLine(ctx.stdout, `tinyPM reference server listening on ${server.url}`);
      writeLine(ctx.stdout, `token: ${server.token}`);
      await ctx.waitForStop();
      await server.close();
      ctx.exitCode = 0;
    });
};
