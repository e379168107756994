import { describe, expect, it } from "vitest";
import { UsageError } from "../core/errors.js";
import { listenError, listenOn } from "./listen-error.js";

const refused = (code: string): Error => Object.assign(new Error(`listen ${code}`), { code });
const target = { what: "The GitHub sandbox", host: "127.0.0.1", port: 4100 };

describe("listenError", () => {
  it("names the address, the port and what to do when the port is taken", () => {
    const error = listenError(refused("EADDRINUSE"), target);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      "The GitHub sandbox cannot listen on 127.0.0.1:4100: port 4100 is already in use (EADDRINUSE).",
    );
    expect((error as UsageError).hint).toMatch(/port 4100.*--port 0/);
    expect((error as UsageError).details).toEqual({
      host: "127.0.0.1",
      port: 4100,
      code: "EADDRINUSE",
    });
  });

  it("says a privileged port needs privileges, and an unknown host is not this machine's", () => {
    const denied = listenError(refused("EACCES"), { ...target, port: 80 }) as UsageError;
    expect(denied.message).toContain("may not open port 80 (EACCES)");
    expect(denied.hint).toContain("1024");
    const away = listenError(refused("EADDRNOTAVAIL"), {
      ...target,
      host: "fe80::1",
    }) as UsageError;
    expect(away.message).toBe(
      "The GitHub sandbox cannot listen on [fe80::1]:4100: fe80::1 is not an address of this machine (EADDRNOTAVAIL).",
    );
  });

  it("leaves any other error as it was", async () => {
    const other = refused("ECONNRESET");
    expect(listenError(other, target)).toBe(other);
    const plain = new Error("boom");
    await expect(listenOn(target, () => Promise.reject(plain))).rejects.toBe(plain);
    await expect(listenOn(target, () => Promise.resolve(7))).resolves.toBe(7);
  });
});
