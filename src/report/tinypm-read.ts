import type { ReportTinypmRead } from "./types.js";

const FULL_REASONS: Readonly<Record<string, string>> = {
  forced: "asked for (--full)",
  first: "first sync",
  due: "the periodic full read",
  migration: "migration",
  "all-changed": "every section changed",
  "no-tiers": "no closed iterations",
  pending: "interrupted creates to settle",
  repair: "--repair-markers",
  unlinked: "the target holds items no link knows",
  undone: "a run's creates were undone since the last full read",
};

const count = (n: number, one: string, many = `${one}s`): string =>
  `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

const CLOSED_REASONS: Readonly<Record<string, string>> = {
  full: "read in full",
  changed: "its story list changed",
  new: "new since the last full read",
};

/** How stories and tasks were read: whole from tinyPM's lists, or one by one. */
function listingWords(listings: ReportTinypmRead["listings"]): string {
  if (listings === undefined) return "";
  const how = (form: string): string | undefined =>
    form === "complete"
      ? "taken whole from tinyPM's lists"
      : form === "summary"
        ? "fetched one by one (tinyPM's lists hold summaries only)"
        : undefined;
  const story = how(listings.story);
  const task = how(listings.task);
  if (story !== undefined && story === task) return `; stories and tasks ${story}`;
  const parts = [
    ...(story === undefined ? [] : [`stories ${story}`]),
    ...(task === undefined ? [] : [`tasks ${task}`]),
  ];
  return parts.length === 0 ? "" : `; ${parts.join(", ")}`;
}

/** One line saying which tiers of tinyPM a run read (every renderer shows it as is). */
export function tinypmReadLine(read: ReportTinypmRead): string {
  const closed = read.sections.filter((s) => s.closed);
  const listings = listingWords(read.listings);
  const fetched =
    read.fetched > 0
      ? `; ${count(read.fetched, "item")} read on ${read.fetched === 1 ? "its" : "their"} own because the target changed ${read.fetched === 1 ? "it" : "them"}`
      : "";
  if (read.complete) {
    const why = FULL_REASONS[read.fullReason ?? ""] ?? read.fullReason ?? "full scan";
    const size =
      read.sections.length === 0
        ? ""
        : `, ${count(
            read.sections.reduce((n, s) => n + s.stories, 0),
            "story",
            "stories",
          )}`;
    return `everything (${why}${size})${listings}${fetched}`;
  }
  const open = read.sections.find((s) => !s.closed);
  const readClosed = closed.filter((s) => s.reason !== "skipped");
  const parts = [
    `the backlog and open iterations (${count(open?.stories ?? 0, "story", "stories")})`,
    `${readClosed.length} of ${count(closed.length, "closed iteration")}` +
      (readClosed.length === 0
        ? " (unchanged since their last full read)"
        : ` (${readClosed.map((s) => `${s.name}: ${CLOSED_REASONS[s.reason] ?? s.reason}`).join(", ")})`),
  ];
  return `${parts.join(" and ")}; a deletion in tinyPM shows on the next full read (\`sync --full\`)${listings}${fetched}`;
}
