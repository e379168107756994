/** Systems by the names people read: one table for the CLI, reports, logs and errors. */
const LABELS: Readonly<Record<string, string>> = {
  tinypm: "tinyPM",
  github: "GitHub",
  jira: "Jira",
  memory: "memory",
};

/** A system's display name: `github` → `GitHub`; unknown names are shown as given. */
export function systemLabel(system: string): string {
  return LABELS[system] ?? system;
}
