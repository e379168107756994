import { hash } from "node:crypto";

/**
 * The first `chars` hex digits (an even count) of a digest of `data`, as a string of their own.
 * `hash(…, "hex").slice(0, 16)` gives a view of the whole 64-digit text instead, which stays
 * alive behind it: 112 bytes for each 16-digit hash a run holds per item (a Jira issue's known
 * version, a link's digest, a comment's key) instead of 32.
 */
export function hexHash(algorithm: "sha1" | "sha256", data: string, chars: number): string {
  return hash(algorithm, data, "buffer").toString("hex", 0, chars / 2);
}
