import type { RunRequest } from "../records.js";
import {
  REQUEST_RUN_SQL,
  REQUESTS_SQL,
  SETTLE_SQL,
  toRunRequest,
  type RunRequestRow,
} from "../run-request-table.js";
import type { Db } from "./pg-db.js";

/** Run requests on PostgreSQL: the rules and SQL of run-request-table.ts. */
export function pgRunRequests(db: Db, now: () => Date) {
  return {
    async requestRun(job: string, trigger: string): Promise<RunRequest> {
      const { rows } = await db.query<RunRequestRow>(REQUEST_RUN_SQL, [
        job,
        trigger,
        now().toISOString(),
      ]);
      const row = rows[0];
      if (row === undefined) throw new Error(`run request of ${job} not recorded`);
      return toRunRequest(row);
    },
    async settleRunRequest(job: string, version: number): Promise<RunRequest | undefined> {
      const { rows } = await db.query<RunRequestRow>(SETTLE_SQL, [job, version]);
      const row = rows[0];
      return row === undefined ? undefined : toRunRequest(row);
    },
    async runRequests(): Promise<RunRequest[]> {
      const { rows } = await db.query<RunRequestRow>(REQUESTS_SQL);
      return rows.map(toRunRequest);
    },
  };
}
