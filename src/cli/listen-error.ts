import { UsageError } from "../core/errors.js";

/** Where a command's server was asked to listen, and what that server is (for the message). */
export interface ListenTarget {
  /** `GitHub sandbox`, `tinyPM reference server`, `serve`… */
  readonly what: string;
  readonly host: string;
  readonly port: number;
}

/** The socket codes a listen fails with when the address, not the tool, is the problem. */
const ADDRESS_CODES = new Set(["EADDRINUSE", "EACCES", "EADDRNOTAVAIL"]);

/**
 * Turns a failed listen into a usage error naming the address and what to do: another process
 * holds the port (EADDRINUSE), the port needs privileges (EACCES), or the host is not an address
 * of this machine (EADDRNOTAVAIL). Any other error is returned as it was.
 */
export function listenError(error: unknown, target: ListenTarget): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !ADDRESS_CODES.has(code)) return error;
  const { what, host, port } = target;
  const address = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const options = { cause: error, details: { host, port, code } };
  if (code === "EADDRINUSE")
    return new UsageError(
      `${what} cannot listen on ${address}: port ${port} is already in use (EADDRINUSE).`,
      {
        ...options,
        hint: `Stop the process that holds port ${port}, or choose another with --port (--port 0 takes any free port).`,
      },
    );
  if (code === "EACCES")
    return new UsageError(
      `${what} cannot listen on ${address}: this user may not open port ${port} (EACCES).`,
      {
        ...options,
        hint: "Ports below 1024 need privileges; choose --port 1024 or above (--port 0 takes any free port).",
      },
    );
  return new UsageError(
    `${what} cannot listen on ${address}: ${host} is not an address of this machine (EADDRNOTAVAIL).`,
    {
      ...options,
      hint: "Use --host 127.0.0.1 (this machine only) or an address one of its interfaces has.",
    },
  );
}

/** Runs `start` (which listens), throwing `listenError`'s usage error when the address is refused. */
export async function listenOn<T>(target: ListenTarget, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    throw listenError(error, target);
  }
}
