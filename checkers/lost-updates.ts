import type { Checker, CheckResult } from "./types.js";
import { metered, type WorkMeter } from "./budget.js";
import { forEachPair } from "./pairs.js";

/**
 * Lost updates: each critical section reads the lock's counter and writes it + 1.
 * If every write a client saw succeed was applied in turn, the final counter equals
 * the number of acknowledged writes. Fewer means some acknowledged update was
 * overwritten by a holder working from a stale read: the harm a double holder does.
 * Needs the storage's `final-read` at the end of the history.
 *
 * Where the storage's own notes are there (`storage-write`), the witness also names
 * each accepted write that did not raise the counter — the overwrite that lost an
 * update — by its history index, with the write it undid.
 */
export interface Overwrite {
  lock: string;
  /** History index of the storage's note of the overwriting write. */
  index: number;
  client: string;
  grantId?: string;
  counter: number;
  /** The accepted write whose update this one undid. */
  overwrote: { index: number; client: string; grantId?: string; counter: number };
  sentence: string;
}

const OVERWRITES_MAX = 20;

/** One step per event scanned (three linear passes at most). */
export const lostUpdates: Checker = (history, ctx) => {
  let phase = "looking for final reads";
  return metered(
    "lost-updates",
    ctx,
    () => `${phase} in ${history.length} events`,
    (meter) => lostUpdatesMetered(history, meter, (p) => (phase = p)),
  );
};

function lostUpdatesMetered(history: Parameters<Checker>[0], meter: WorkMeter, phase: (p: string) => void): CheckResult {
  const finals = new Map<string, number>();
  let writesInvoked = 0;
  for (const e of history) {
    meter.tick();
    if (e.f === "final-read" && e.type === "ok" && e.lock !== undefined) {
      finals.set(e.lock, (e.value as { counter: number }).counter);
    }
    if (e.type === "invoke" && e.f === "write" && e.lock !== undefined) writesInvoked++;
  }
  if (finals.size === 0) {
    return {
      checker: "lost-updates",
      valid: true,
      summary: "not checked: the history has no final-read",
      skipped: "no final-read",
      stats: { finalReads: 0, writesInvoked },
    };
  }
  const acked = new Map<string, number>();
  // A write is unknown unless it completed ok or fail (one never completed counts too).
  let writesDecided = 0;
  phase("counting acknowledged writes");
  meter.tick(history.length);
  // One pass over the pairs, keeping counts per lock, not an Operation per op.
  forEachPair(history, (invoke, complete) => {
    if (invoke.f !== "write" || invoke.lock === undefined) return;
    if (complete.type === "ok") acked.set(invoke.lock, (acked.get(invoke.lock) ?? 0) + 1);
    if (complete.type === "ok" || complete.type === "fail") writesDecided++;
  });
  const unknownWrites = writesInvoked - writesDecided;
  const lost: Array<{ lock: string; acknowledged: number; final: number; lost: number }> = [];
  let ackedTotal = 0;
  for (const lock of [...new Set([...finals.keys(), ...acked.keys()])].sort()) {
    const a = acked.get(lock) ?? 0;
    ackedTotal += a;
    const fin = finals.get(lock) ?? 0;
    if (fin < a) lost.push({ lock, acknowledged: a, final: fin, lost: a - fin });
  }
  const lostTotal = lost.reduce((s, l) => s + l.lost, 0);
  const stats = { finalReads: finals.size, acknowledgedWrites: ackedTotal, lostUpdates: lostTotal, unknownWrites };
  if (lost.length === 0) {
    return { checker: "lost-updates", valid: true, summary: `${ackedTotal} acknowledged writes, none lost`, stats };
  }
  const l = lost[0]!;
  phase("finding the writes that undid others");
  const overwrites = findOverwrites(history, new Set(lost.map((x) => x.lock)), meter);
  return {
    checker: "lost-updates",
    valid: false,
    summary:
      `${lostTotal} lost update(s): ${l.lock} ended at ${l.final} after ${l.acknowledged} acknowledged increments` +
      (overwrites.length > 0 ? `; ${overwrites[0]!.sentence}` : ""),
    witness: { counters: lost, overwrites },
    stats,
  };
}

/** Accepted writes, in the storage's order, that set a counter no higher than it already was. */
function findOverwrites(history: Parameters<Checker>[0], locks: Set<string>, meter: WorkMeter): Overwrite[] {
  type Accepted = { index: number; client: string; grantId?: string; counter: number };
  const last = new Map<string, Accepted>();
  const out: Overwrite[] = [];
  for (const e of history) {
    meter.tick();
    if (e.f !== "storage-write" || e.type !== "ok" || e.lock === undefined || !locks.has(e.lock)) continue;
    const v = e.value as { client?: string; grantId?: string; counter?: number } | undefined;
    if (typeof v?.counter !== "number") continue;
    const w: Accepted = { index: e.index, client: v.client ?? "?", grantId: v.grantId, counter: v.counter };
    const prev = last.get(e.lock);
    if (prev && w.counter <= prev.counter && out.length < OVERWRITES_MAX) {
      out.push({
        lock: e.lock,
        ...w,
        overwrote: prev,
        sentence:
          `${w.client}'s write of ${w.counter}${w.grantId ? ` (grant ${w.grantId})` : ""} at ${(e.timeUs / 1000).toFixed(3)} ms ` +
          `overwrote ${prev.client}'s write of ${prev.counter}${prev.grantId ? ` (grant ${prev.grantId})` : ""}: it had read the counter before that update.`,
      });
    }
    last.set(e.lock, w);
  }
  return out;
}
