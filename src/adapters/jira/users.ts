/** The project's assignable users: the only accounts an issue may be assigned to. */
import type { UserRef } from "../../core/model.js";
import type { JiraContext } from "./context.js";
import { userRef } from "./map.js";
import { rawUsers } from "./schema.js";

const PAGE = 1000;
/** 100,000 accounts: far beyond any site, and a bound should a server keep answering. */
const MAX_PAGES = 100;

/**
 * Every user assignable in the job's project (`GET /rest/api/3/user/assignable/search`), page by
 * page until an empty one (Jira filters a page *after* cutting it, so a short page does not mean
 * the end); inactive accounts are left out (Jira refuses them as assignees). Emails come back
 * only where the user's profile shows them.
 */
export async function listAssignableUsers(ctx: JiraContext): Promise<UserRef[]> {
  const out: UserRef[] = [];
  for (let n = 0; n < MAX_PAGES; n++) {
    const startAt = n * PAGE;
    const raw = await ctx.api.assignableUsers(ctx.settings.projectKey, startAt);
    const page = ctx.client.parse(rawUsers, raw, {
      operation: "GET /rest/api/3/user/assignable/search",
    });
    for (const u of page) {
      const ref = u.active === false ? undefined : userRef(u);
      if (ref !== undefined) out.push(ref);
    }
    if (page.length === 0) break;
  }
  return out;
}
