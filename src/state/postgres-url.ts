/** A PostgreSQL URL as people may see it: the password replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    for (const key of [...parsed.searchParams.keys()]) {
      if (/pass|secret|token/i.test(key)) parsed.searchParams.set(key, "***");
    }
    return parsed.toString();
  } catch {
    return "(an unparsable PostgreSQL URL)";
  }
}

/** Whether a state location is a PostgreSQL URL rather than an SQLite file path. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** Whether the URL carries a password (refused in a config file: passwords live in the environment). */
export function urlHasPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== "" || [...parsed.searchParams.keys()].some((k) => /pass/i.test(k));
  } catch {
    return false;
  }
}
