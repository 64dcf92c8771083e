import { InputError } from "../../sim/errors.js";

/** An inclusive range of seeds. */
export interface SeedRange {
  from: number;
  to: number;
}

/** One slice of a seed range: shard `index` (1-based) of `count`, covering from..to (empty when from > to). */
export interface Shard {
  index: number;
  count: number;
  from: number;
  to: number;
}

/** "i/n" with 1 <= i <= n, as jest's and playwright's --shard. */
export function parseShard(text: string, flag: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m) throw new InputError("<arg>", flag, `expected i/n (e.g. 2/4: the 2nd of 4 slices), got "${text}"`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count) {
    throw new InputError("<arg>", flag, `expected i/n with 1 <= i <= n, got "${text}"`);
  }
  return { index, count };
}

export function rangeSize(r: SeedRange): number {
  return Math.max(0, r.to - r.from + 1);
}

/**
 * The i-th of n contiguous slices of a range; slice sizes differ by at most one, and
 * the n slices cover the range exactly once, whatever n is. With more shards than
 * seeds some slices are empty (from > to): a fixed CI matrix still works on a short range.
 */
export function shardOf(range: SeedRange, index: number, count: number): Shard {
  const n = rangeSize(range);
  const lo = Math.floor(((index - 1) * n) / count);
  const hi = Math.floor((index * n) / count);
  return { index, count, from: range.from + lo, to: range.from + hi - 1 };
}

export function seedsOf(r: SeedRange): number[] {
  return Array.from({ length: rangeSize(r) }, (_, i) => r.from + i);
}
