import type { Checker, CheckResult, OnlineChecker } from "./types.js";
import { metered } from "./budget.js";
import type { HistoryEvent } from "../sim/history.js";
import { forEachPair, Pairer } from "./pairs.js";

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

/** One step per event scanned (two linear passes). */
export const lostUpdates: Checker = (history, ctx) => {
  let phase = "reading final reads and storage writes";
  return metered(
    "lost-updates",
    ctx,
    () => `${phase} in ${history.length} events`,
    (meter) => {
      const tally = new UpdateTally();
      for (const e of history) {
        meter.tick();
        tally.event(e);
      }
      phase = "counting acknowledged writes";
      meter.tick(history.length);
      forEachPair(history, (invoke, complete) => tally.pair(invoke, complete));
      return tally.result();
    },
  );
};

type Accepted = { index: number; client: string; grantId?: string; counter: number };

/**
 * What the verdict needs, gathered one event and one op at a time: the final reads,
 * the acknowledged writes per lock, and per lock the last accepted write and the first
 * overwrites. Shared by the batch checker and the online one, which holds only this.
 */
export class UpdateTally {
  private readonly finals = new Map<string, number>();
  private readonly acked = new Map<string, number>();
  private writesInvoked = 0;
  private writesDecided = 0;
  private readonly last = new Map<string, Accepted>();
  /** Per lock, its first overwrites (the witness takes the first OVERWRITES_MAX of the locks that lost updates). */
  private readonly overwrites = new Map<string, Overwrite[]>();

  event(e: HistoryEvent): void {
    if (e.f === "final-read" && e.type === "ok" && e.lock !== undefined) this.finals.set(e.lock, (e.value as { counter: number }).counter);
    if (e.type === "invoke" && e.f === "write" && e.lock !== undefined) this.writesInvoked++;
    if (e.f === "storage-write" && e.type === "ok" && e.lock !== undefined) this.storageWrite(e, e.lock);
  }

  pair(invoke: HistoryEvent, complete: HistoryEvent): void {
    if (invoke.f !== "write" || invoke.lock === undefined) return;
    if (complete.type === "ok") this.acked.set(invoke.lock, (this.acked.get(invoke.lock) ?? 0) + 1);
    if (complete.type === "ok" || complete.type === "fail") this.writesDecided++;
  }

  /** An accepted write that set a counter no higher than it already was undid an update. */
  private storageWrite(e: HistoryEvent, lock: string): void {
    const v = e.value as { client?: string; grantId?: string; counter?: number } | undefined;
    if (typeof v?.counter !== "number") return;
    const w: Accepted = { index: e.index, client: v.client ?? "?", grantId: v.grantId, counter: v.counter };
    const prev = this.last.get(lock);
    const list = this.overwrites.get(lock) ?? [];
    if (prev && w.counter <= prev.counter && list.length < OVERWRITES_MAX) {
      list.push({
        lock,
        ...w,
        overwrote: prev,
        sentence:
          `${w.client}'s write of ${w.counter}${w.grantId ? ` (grant ${w.grantId})` : ""} at ${(e.timeUs / 1000).toFixed(3)} ms ` +
          `overwrote ${prev.client}'s write of ${prev.counter}${prev.grantId ? ` (grant ${prev.grantId})` : ""}: it had read the counter before that update.`,
      });
      this.overwrites.set(lock, list);
    }
    this.last.set(lock, w);
  }

  result(): CheckResult {
    const { finals, acked, writesInvoked } = this;
    if (finals.size === 0) {
      return {
        checker: "lost-updates",
        valid: true,
        summary: "not checked: the history has no final-read",
        skipped: "no final-read",
        stats: { finalReads: 0, writesInvoked },
      };
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
    const stats = { finalReads: finals.size, acknowledgedWrites: ackedTotal, lostUpdates: lostTotal, unknownWrites: writesInvoked - this.writesDecided };
    if (lost.length === 0) {
      return { checker: "lost-updates", valid: true, summary: `${ackedTotal} acknowledged writes, none lost`, stats };
    }
    const l = lost[0]!;
    const overwrites = lost
      .flatMap((x) => this.overwrites.get(x.lock) ?? [])
      .sort((a, b) => a.index - b.index)
      .slice(0, OVERWRITES_MAX);
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
}

/** Lost updates over a stream: the tally, and the pairing rule's one open invoke per process. */
export class OnlineLostUpdates implements OnlineChecker {
  private readonly tally = new UpdateTally();
  private readonly pairer = new Pairer((invoke, complete) => this.tally.pair(invoke, complete));

  push(e: HistoryEvent): void {
    this.tally.event(e);
    this.pairer.push(e);
  }

  result(): CheckResult {
    return this.tally.result();
  }
}
