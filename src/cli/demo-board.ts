import type { WorkItem } from "../core/model.js";

/** How many cards a column of `demo --board` lists before it says how many more there are. */
const SHOWN = 4;

/**
 * The board `demo --board` made, as text: one line per Status column with its cards (issue
 * number, title, iteration, estimate, priority), the columns in the order their first card
 * appears. Pure: the items are the GitHub adapter's, board values laid over.
 */
export function boardLines(title: string, stories: readonly WorkItem[]): string[] {
  const columns = new Map<string, WorkItem[]>();
  for (const s of [...stories].sort((a, b) => Number(a.id) - Number(b.id))) {
    const column = columns.get(s.status) ?? [];
    column.push(s);
    columns.set(s.status, column);
  }
  const lines = [`Board "${title}" (GitHub Project, read back): ${stories.length} stories`];
  for (const [status, cards] of columns) {
    lines.push(`  ${status} (${cards.length})`);
    for (const c of cards.slice(0, SHOWN)) lines.push(`    ${card(c)}`);
    if (cards.length > SHOWN) lines.push(`    … ${cards.length - SHOWN} more`);
  }
  return lines;
}

function card(c: WorkItem): string {
  const facts = [
    c.iteration?.name,
    c.estimate === undefined ? undefined : `estimate ${c.estimate}`,
    c.priority,
  ].filter((f): f is string => f !== undefined && f !== "");
  return `#${c.id} ${c.title}${facts.length === 0 ? "" : ` · ${facts.join(" · ")}`}`;
}
