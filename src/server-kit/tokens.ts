import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Compares a presented secret with the expected one in constant time. Both are hashed first so
 * that neither the content nor the length of the expected token leaks through timing.
 */
export function tokensEqual(presented: string | undefined, expected: string): boolean {
  const a = createHash("sha256")
    .update(presented ?? "")
    .digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b) && presented !== undefined;
}

/** A random token of 32 lower-case hex characters (tinyPM's own token shape). */
export function randomToken(): string {
  return randomBytes(16).toString("hex");
}
