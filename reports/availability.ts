import { pairOperations, type HistoryEvent } from "../sim/history.js";
import { computeHolds } from "../checkers/holds.js";

/**
 * Availability beside safety: a lock that never lets a second client in cannot let
 * two in at once, so a 0% violation rate means little unless the design was
 * challenged. Per run: grants, failed acquires, the time someone waited while nobody
 * held the lock, and whether the run challenged the lock (checkers/challenge.ts).
 *
 * A pure function of the history (simulated time only), so a sweep can keep it per
 * seed and shards add up to the unsharded sweep.
 */
export interface RunAvailability {
  /** acquire ok events. */
  grants: number;
  /** Acquires that failed or whose outcome is unknown. */
  failedAcquires: number;
  /** True time, µs, in which some client waited for a lock that no client held (per lock, summed). */
  idleWhileWaitingUs: number;
  /**
   * Whether the run challenged the lock, as checkers/challenge.ts judged it by the
   * scenario's rule (by default: a client granted the lock while another still believed
   * it held it). A run where the second client gave up, or where clients took turns, is not.
   */
  challenged: boolean;
}

/** Over a sweep: the sums of RunAvailability, and how many runs were challenged. */
export interface SweepAvailability {
  grants: number;
  failedAcquires: number;
  idleWhileWaitingUs: number;
  challengedRuns: number;
}

/** `challenged` is the run's judged challenge (checkers/challenge.ts, in the run's Verdicts). */
export function runAvailability(history: readonly HistoryEvent[], challenged: boolean): RunAvailability {
  const { ops } = pairOperations(history);
  const endUs = history.length > 0 ? history[history.length - 1]!.timeUs : 0;
  let grants = 0;
  let failedAcquires = 0;
  // Per lock: +1/-1 edges of waiting and of holding, swept in time order.
  const edges = new Map<string, Array<{ t: number; wait: number; hold: number }>>();
  const edgesOf = (lock: string) => {
    let a = edges.get(lock);
    if (!a) edges.set(lock, (a = []));
    return a;
  };
  for (const op of ops) {
    if (op.f !== "acquire") continue;
    if (op.outcome === "ok") grants++;
    else failedAcquires++;
    const lock = op.lock ?? "";
    const e = Math.min(op.complete?.timeUs ?? endUs, endUs);
    if (e > op.startUs) edgesOf(lock).push({ t: op.startUs, wait: 1, hold: 0 }, { t: e, wait: -1, hold: 0 });
  }
  const holds = computeHolds(history);
  for (const h of holds) {
    const e = Math.min(h.endUs, endUs);
    if (e > h.startUs) edgesOf(h.lock).push({ t: h.startUs, wait: 0, hold: 1 }, { t: e, wait: 0, hold: -1 });
  }
  let idleWhileWaitingUs = 0;
  for (const list of edges.values()) {
    list.sort((a, b) => a.t - b.t);
    let waiting = 0;
    let holding = 0;
    let prevUs = list.length > 0 ? list[0]!.t : 0;
    for (const x of list) {
      if (waiting > 0 && holding === 0) idleWhileWaitingUs += x.t - prevUs;
      waiting += x.wait;
      holding += x.hold;
      prevUs = x.t;
    }
  }
  return { grants, failedAcquires, idleWhileWaitingUs, challenged };
}

export function emptySweepAvailability(): SweepAvailability {
  return { grants: 0, failedAcquires: 0, idleWhileWaitingUs: 0, challengedRuns: 0 };
}

export function addRunAvailability(acc: SweepAvailability, r: RunAvailability): SweepAvailability {
  return {
    grants: acc.grants + r.grants,
    failedAcquires: acc.failedAcquires + r.failedAcquires,
    idleWhileWaitingUs: acc.idleWhileWaitingUs + r.idleWhileWaitingUs,
    challengedRuns: acc.challengedRuns + (r.challenged ? 1 : 0),
  };
}

export function addSweepAvailability(a: SweepAvailability, b: SweepAvailability): SweepAvailability {
  return {
    grants: a.grants + b.grants,
    failedAcquires: a.failedAcquires + b.failedAcquires,
    idleWhileWaitingUs: a.idleWhileWaitingUs + b.idleWhileWaitingUs,
    challengedRuns: a.challengedRuns + b.challengedRuns,
  };
}
