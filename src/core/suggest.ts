/** Edit distance (insertions, deletions, substitutions, adjacent swaps), case-insensitive. */
function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const width = t.length + 1;
  // Row-major (s.length + 1) × (t.length + 1) table in one array.
  const d = new Array<number>((s.length + 1) * width).fill(0);
  const at = (i: number, j: number): number => d[i * width + j] ?? 0;
  for (let i = 0; i <= s.length; i++) d[i * width] = i;
  for (let j = 0; j <= t.length; j++) d[j] = j;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      d[i * width + j] = best;
    }
  }
  return at(s.length, t.length);
}

/**
 * The candidate a mistyped word most likely meant: the nearest by edit distance, if it is near
 * enough (at most a third of the word's length, at least 1; case alone always counts).
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const distance = editDistance(word, c);
    if (distance < bestDistance) {
      best = c;
      bestDistance = distance;
    }
  }
  const limit = Math.max(1, Math.floor(word.length / 3));
  return best !== undefined && bestDistance <= limit ? best : undefined;
}
