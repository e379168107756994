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
};

const count = (n: number, one: string, many = `${one}s`): string =>
  `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** One line saying which tiers of tinyPM a run read (every renderer shows it as is). */
export function tinypmReadLine(read: ReportTinypmRead): string {
  const closed = read.sections.filter((s) => s.closed);
  const listings =
    read.listings === undefined
      ? ""
      : `; listings: stories ${read.listings.story}, tasks ${read.listings.task}`;
  const fetched =
    read.fetched > 0 ? `; ${count(read.fetched, "item")} read because the target changed it` : "";
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
    return `complete (${why}${size})${listings}${fetched}`;
  }
  const open = read.sections.find((s) => !s.closed);
  const readClosed = closed.filter((s) => s.reason !== "skipped");
  const parts = [
    `open section (${count(open?.stories ?? 0, "story", "stories")})`,
    `${readClosed.length} of ${count(closed.length, "closed iteration")}` +
      (readClosed.length === 0
        ? ""
        : ` (${readClosed.map((s) => `${s.name}: ${s.reason}`).join(", ")})`),
  ];
  return `tiered: ${parts.join(", ")}; deletions wait for a complete read${listings}${fetched}`;
}
