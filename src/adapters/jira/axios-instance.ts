/**
 * The axios instance a jira.js client keeps (in a field its typings call private), for the
 * interceptors the adapter installs on it: the Data Center dialect, the debug log, the site's
 * clock. Undefined when the client keeps none.
 */
export function axiosInstance(client: object): object | undefined {
  const instance = (client as { instance?: unknown }).instance;
  const ok = typeof instance === "function" || (typeof instance === "object" && instance !== null);
  return ok && "interceptors" in instance ? instance : undefined;
}
