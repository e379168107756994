/**
 * The config's state, apart from a job's connections (./job-session.ts): the commands that only
 * read the state (status, conflicts) open it without loading the adapters.
 */
import type { LoadedConfig } from "../config/load.js";
import {
  keepStateConnections as keepConnectionsAt,
  openState as openStateAt,
  type StateConnections,
  type StateLocation,
} from "../state/open-state.js";
import type { StateStore } from "../state/store.js";

/** Opens the job's state, SQLite file or PostgreSQL (read-only for dry runs and reports: no lock, no writes). */
export function openState(loaded: LoadedConfig, readOnly: boolean): Promise<StateStore> {
  const at = loaded.state;
  return openStateAt(stateLocation(loaded), {
    readOnly,
    waitForLockMs: loaded.config.state.waitForLockMs,
    // Renewed every third of its life: one failed heartbeat is not yet a lost lease.
    lease:
      at.backend === "postgres" && at.leaseTtlMs !== undefined
        ? { ttlMs: at.leaseTtlMs, heartbeatMs: Math.floor(at.leaseTtlMs / 3) }
        : undefined,
  });
}

/** Keeps the connections to the config's state open until closed (see `keepStateConnections`). */
export function keepStateConnections(loaded: LoadedConfig): StateConnections {
  return keepConnectionsAt(stateLocation(loaded));
}

function stateLocation(loaded: LoadedConfig): StateLocation {
  const at = loaded.state;
  return at.backend === "sqlite"
    ? { backend: "sqlite", path: at.path }
    : { backend: "postgres", url: at.url };
}
