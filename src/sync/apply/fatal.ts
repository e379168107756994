import {
  AuthError,
  InterruptedError,
  LimitWaitError,
  PermissionError,
  RemoteUnavailableError,
  StateError,
} from "../../core/errors.js";

/**
 * Errors that stop the whole run: nothing more can succeed until the user acts (exit 3), or the
 * user stopped it (exit 130; the items not reached are not failures, the next run does them).
 */
export function isFatal(error: unknown): boolean {
  return (
    error instanceof InterruptedError ||
    // A limit holds every request back past the wait budget: stop before the next write.
    error instanceof LimitWaitError ||
    error instanceof AuthError ||
    error instanceof PermissionError ||
    error instanceof RemoteUnavailableError ||
    // The state cannot record (unreachable), or the run's lease is lost: no item can finish.
    error instanceof StateError
  );
}
