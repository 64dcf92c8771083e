import type { Checker } from "./types.js";
import { pairOperations } from "../sim/history.js";

/**
 * Lost updates: each critical section reads the lock's counter and writes it + 1.
 * If every write a client saw succeed was applied in turn, the final counter equals
 * the number of acknowledged writes. Fewer means some acknowledged update was
 * overwritten by a holder working from a stale read: the harm a double holder does.
 * Needs the storage's `final-read` at the end of the history.
 */
export const lostUpdates: Checker = (history) => {
  const finals = new Map<string, number>();
  for (const e of history) {
    if (e.f === "final-read" && e.type === "ok" && e.lock !== undefined) {
      finals.set(e.lock, (e.value as { counter: number }).counter);
    }
  }
  if (finals.size === 0) {
    return { checker: "lost-updates", valid: true, summary: "not checked: the history has no final-read", skipped: "no final-read" };
  }
  const acked = new Map<string, number>();
  let unknownWrites = 0;
  for (const op of pairOperations(history).ops) {
    if (op.f !== "write" || op.lock === undefined) continue;
    if (op.outcome === "ok") acked.set(op.lock, (acked.get(op.lock) ?? 0) + 1);
    else if (op.outcome === "info") unknownWrites++;
  }
  const lost: Array<{ lock: string; acknowledged: number; final: number; lost: number }> = [];
  let ackedTotal = 0;
  for (const lock of [...new Set([...finals.keys(), ...acked.keys()])].sort()) {
    const a = acked.get(lock) ?? 0;
    ackedTotal += a;
    const fin = finals.get(lock) ?? 0;
    if (fin < a) lost.push({ lock, acknowledged: a, final: fin, lost: a - fin });
  }
  const lostTotal = lost.reduce((s, l) => s + l.lost, 0);
  const stats = { acknowledgedWrites: ackedTotal, lostUpdates: lostTotal, unknownWrites };
  if (lost.length === 0) {
    return { checker: "lost-updates", valid: true, summary: `${ackedTotal} acknowledged writes, none lost`, stats };
  }
  const l = lost[0]!;
  return {
    checker: "lost-updates",
    valid: false,
    summary: `${lostTotal} lost update(s): ${l.lock} ended at ${l.final} after ${l.acknowledged} acknowledged increments`,
    witness: lost,
    stats,
  };
};
