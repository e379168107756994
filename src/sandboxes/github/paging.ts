/**
 * GitHub pagination: `per_page` (default 30, at most 100) and `page` (default 1), with a `link`
 * header of absolute URLs in GitHub's order (prev, next, last, first), none on a single page.
 */
const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 100;

export interface Page<T> {
  readonly items: readonly T[];
  readonly link: string | undefined;
}

function positiveInt(text: string | null, fallback: number): number {
  if (text === null || !/^\d+$/.test(text)) return fallback;
  const n = Number(text);
  return n >= 1 ? n : fallback;
}

/**
 * Cuts one page out of `items`. `linkBase` is the absolute URL (without query) that the `link`
 * header points at: GitHub sometimes uses `/repositories/{id}/…` there, not `/repos/{o}/{r}/…`.
 */
export function paginate<T>(
  items: readonly T[],
  query: URLSearchParams,
  linkBase: string,
): Page<T> {
  const perPage = Math.min(MAX_PER_PAGE, positiveInt(query.get("per_page"), DEFAULT_PER_PAGE));
  const page = positiveInt(query.get("page"), 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage);
  if (last === 1 && page === 1) return { items: slice, link: undefined };
  const href = (n: number): string => {
    const q = new URLSearchParams(query);
    q.delete("page");
    q.set("page", String(n));
    return `<${linkBase}?${q.toString()}>`;
  };
  const parts: string[] = [];
  if (page > 1) parts.push(`${href(Math.min(page - 1, last))}; rel="prev"`);
  if (page < last) {
    parts.push(`${href(page + 1)}; rel="next"`);
    parts.push(`${href(last)}; rel="last"`);
  }
  if (page > 1) parts.push(`${href(1)}; rel="first"`);
  return { items: slice, link: parts.join(", ") };
}
