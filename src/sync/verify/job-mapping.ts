import type { SystemName } from "../../core/model.js";
import type { Tracker } from "../../core/tracker.js";
import { compileMapping, type CompiledMapping } from "../../mapping/compile.js";
import type { MappingSpec } from "../../mapping/schema.js";
import type { UnmappedPolicy, UserMap } from "../../mapping/users.js";
import type { Lanes } from "../../gate/lanes.js";
import { laneRead, matchJobUsers } from "../read/run-read.js";

/**
 * The job's mapping compiled as a run compiles it: with tinyPM's iterations and the users matched
 * between the two sides (tinyPM's users and iterations, the target's users: a few reads).
 */
export async function compileJobMapping(o: {
  readonly targetSystem: SystemName;
  readonly tinypm: Tracker;
  readonly target: Tracker;
  readonly mappingSpec: MappingSpec;
  readonly userMap?: UserMap | undefined;
  readonly unmappedUsers?: UnmappedPolicy | undefined;
  readonly lanes: Lanes;
}): Promise<CompiledMapping> {
  const [tinypmUsers, iterations] = await Promise.all([
    laneRead(o.lanes, "tinypm", "list tinypm users", () => o.tinypm.listUsers()),
    laneRead(o.lanes, "tinypm", "list tinypm iterations", () => o.tinypm.listIterations()),
  ]);
  const users = await matchJobUsers(o, tinypmUsers);
  return compileMapping(o.mappingSpec, { users: users.table, iterations });
}
