import { loadavg } from "node:os";

/**
 * Alternating rounds: each variant measured once per round, in turn (A B C, A B C, ...),
 * so a change in the machine's speed falls on every variant alike. A figure is the
 * median of its rounds with the smallest and largest beside it, and a ratio is taken
 * round by round (A/B of the same round) before its median, so a reader can tell a
 * change from this VM's swings.
 */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spreadOf(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error("spreadOf: no values");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** `median [min–max]` with `digits` decimals. */
export function formatSpread(s: Spread, digits = 0): string {
  return `${s.median.toFixed(digits)} [${s.min.toFixed(digits)}–${s.max.toFixed(digits)}]`;
}

/** Runs `rounds` rounds of every variant in turn; each measure returns one figure (higher or lower is the caller's). */
export function alternatingRounds<K extends string>(measures: Record<K, () => number>, rounds: number): Record<K, number[]> {
  const names = Object.keys(measures) as K[];
  const out = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (let r = 0; r < rounds; r++) for (const n of names) out[n].push(measures[n]());
  return out;
}

/** Round-by-round ratios a[i] / b[i], as a spread. */
export function ratioSpread(a: readonly number[], b: readonly number[]): Spread {
  return spreadOf(a.map((x, i) => x / b[i]!));
}

/** The 1, 5 and 15-minute load averages, for the lines a bench prints before and after its rounds. */
export function loadAverage(digits = 1): string {
  return loadavg()
    .map((x) => x.toFixed(digits))
    .join(" ");
}
