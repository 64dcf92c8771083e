import type { Entry } from "./types.js";

/** Index arithmetic over a 1-based Raft log held as an array (no snapshots). */

export function lastIndex<Cmd>(log: readonly Entry<Cmd>[]): number {
  return log.length;
}

/** Term of the entry at `index`; 0 for index 0 (the empty prefix) and beyond the end. */
export function termAt<Cmd>(log: readonly Entry<Cmd>[], index: number): number {
  if (index <= 0 || index > log.length) return 0;
  return log[index - 1]!.term;
}

export function lastTerm<Cmd>(log: readonly Entry<Cmd>[]): number {
  return termAt(log, log.length);
}

/** First index holding an entry of `term`, searching back from `from` (fast backup). */
export function firstIndexOfTerm<Cmd>(log: readonly Entry<Cmd>[], term: number, from: number): number {
  let i = from;
  while (i > 1 && termAt(log, i - 1) === term) i--;
  return i;
}

/** Last index holding an entry of `term`, or 0 if the log has none. */
export function lastIndexOfTerm<Cmd>(log: readonly Entry<Cmd>[], term: number): number {
  for (let i = log.length; i >= 1; i--) {
    const t = log[i - 1]!.term;
    if (t === term) return i;
    if (t < term) return 0; // terms only grow along a log
  }
  return 0;
}

/**
 * §5.4.1: a candidate's log is at least as up-to-date as ours if its last term is
 * greater, or equal with an index at least as large.
 */
export function isUpToDate<Cmd>(log: readonly Entry<Cmd>[], candLastIndex: number, candLastTerm: number): boolean {
  const myTerm = lastTerm(log);
  return candLastTerm > myTerm || (candLastTerm === myTerm && candLastIndex >= log.length);
}
