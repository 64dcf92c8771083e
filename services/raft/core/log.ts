import type { Entry } from "./types.js";

/**
 * Index arithmetic over a 1-based Raft log held as an array. After log compaction
 * (§7) the array holds only the entries after `base` (the snapshot's last index, whose
 * term is `baseTerm`): log[k] is the entry at index base + 1 + k. Without a snapshot
 * both are 0 and the array is the whole log.
 */

export function lastIndex<Cmd>(log: readonly Entry<Cmd>[], base = 0): number {
  return base + log.length;
}

/** Term of the entry at `index`; `baseTerm` at the snapshot's index, 0 at 0, below the snapshot and beyond the end. */
export function termAt<Cmd>(log: readonly Entry<Cmd>[], index: number, base = 0, baseTerm = 0): number {
  if (index === base) return baseTerm;
  if (index < base || index > base + log.length) return 0;
  return log[index - base - 1]!.term;
}

/** Term of the last entry; `baseTerm`, the snapshot's, when the array is empty. */
export function lastTerm<Cmd>(log: readonly Entry<Cmd>[], baseTerm = 0): number {
  return log.length === 0 ? baseTerm : log[log.length - 1]!.term;
}

/** First index holding an entry of `term`, searching back from `from` (fast backup); not below the snapshot. */
export function firstIndexOfTerm<Cmd>(log: readonly Entry<Cmd>[], term: number, from: number, base = 0, baseTerm = 0): number {
  let i = from;
  while (i > base + 1 && termAt(log, i - 1, base, baseTerm) === term) i--;
  return i;
}

/** Last index holding an entry of `term` (the snapshot's own index included), or 0 if the log has none. */
export function lastIndexOfTerm<Cmd>(log: readonly Entry<Cmd>[], term: number, base = 0, baseTerm = 0): number {
  for (let i = log.length; i >= 1; i--) {
    const t = log[i - 1]!.term;
    if (t === term) return base + i;
    if (t < term) return 0; // terms only grow along a log
  }
  return base > 0 && baseTerm === term ? base : 0;
}

/**
 * §5.4.1: a candidate's log is at least as up-to-date as ours if its last term is
 * greater, or equal with an index at least as large.
 */
export function isUpToDate(ownLastIndex: number, ownLastTerm: number, candLastIndex: number, candLastTerm: number): boolean {
  return candLastTerm > ownLastTerm || (candLastTerm === ownLastTerm && candLastIndex >= ownLastIndex);
}
