/**
 * "Did you mean" for unknown names: the known names nearest by edit distance
 * (Levenshtein), within a third of the name's length, nearest first.
 */
export function nearestNames(name: string, known: readonly string[], max = 3): string[] {
  const limit = Math.max(2, Math.floor(name.length / 3));
  return known
    .map((k) => ({ k, d: Math.min(editDistance(name, k), k.includes(name) && name.length >= 3 ? 1 : Infinity) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
    .slice(0, max)
    .map((x) => x.k);
}

/** One line: `did you mean X, Y? ` or nothing, to put before the full list. */
export function didYouMean(name: string, known: readonly string[]): string {
  const near = nearestNames(name, known);
  return near.length > 0 ? `did you mean ${near.join(", ")}? ` : "";
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}
