/**
 * "Did you mean" for unknown names: the known names nearest by edit distance
 * (Levenshtein), nearest first. A name is close when its distance is within a third
 * of its length, or when it is a fragment of a known name ("gc-pause") or a typo of
 * one of its words ("redlok"): those count as distance 1 and 2.
 */
export function nearestNames(name: string, known: readonly string[], max = 3): string[] {
  const limit = Math.max(2, Math.floor(name.length / 3));
  return ranked(name, known)
    .filter((x) => x.d <= limit)
    .slice(0, max)
    .map((x) => x.k);
}

/**
 * One line to put before a pointer to the full list: the close names if any, else the
 * `max` nearest anyway (a stranger like "nope" still learns what names look like).
 */
export function didYouMean(name: string, known: readonly string[], max = 3): string {
  const near = nearestNames(name, known, max);
  const names =
    near.length > 0
      ? near
      : ranked(name, known)
          .slice(0, max)
          .map((x) => x.k);
  return names.length > 0 ? `did you mean ${names.join(", ")}? ` : "";
}

function ranked(name: string, known: readonly string[]): { k: string; d: number }[] {
  return known.map((k) => ({ k, d: distance(name, k) })).sort((a, b) => a.d - b.d || a.k.localeCompare(b.k));
}

function distance(name: string, k: string): number {
  const whole = editDistance(name, k);
  if (name.length >= 3 && k.includes(name)) return Math.min(whole, 1);
  // A typo of one word of a hyphenated name: one more than the word's distance, so a
  // near-whole match still ranks first.
  const word = name.length >= 5 && !name.includes("-") ? Math.min(...k.split("-").map((w) => editDistance(name, w))) : Infinity;
  return Math.min(whole, word <= 1 ? word + 1 : Infinity);
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
