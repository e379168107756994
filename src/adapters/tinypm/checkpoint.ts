/** The tinyPM feed's checkpoint: when the last full scan ran, how many items it saw, their hash. */
import { z } from "zod";
import { StateError } from "../../core/errors.js";
import type { Checkpoint } from "../../core/tracker.js";

const checkpointSchema = z.strictObject({
  scannedAt: z.string(),
  count: z.number().int().nonnegative(),
  hash: z.string().optional(),
});
type TinypmCheckpoint = z.infer<typeof checkpointSchema>;

/** Validates a stored checkpoint (owned by this adapter). */
export function parseCheckpoint(from: Checkpoint | undefined): TinypmCheckpoint | undefined {
  if (from === undefined) return undefined;
  const parsed = checkpointSchema.safeParse(from);
  if (!parsed.success) {
    throw new StateError(
      "state_invalid",
      `The stored tinyPM checkpoint is not valid: ${JSON.stringify(from)}.`,
      {
        hint: "Reset the job's checkpoint; the next run rescans tinyPM fully (safe: tinyPM is always fully scanned).",
      },
    );
  }
  return parsed.data;
}
