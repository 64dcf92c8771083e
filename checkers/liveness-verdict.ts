/** The liveness checker's verdict, witness and summary from what was judged (liveness-online.ts). */
import type { CheckResult } from "./types.js";
import { timeText } from "./time-text.js";

export const LIVENESS = "liveness";
export const WITNESS_MAX = 20;

export interface SlowWait {
  lock: string;
  client: string;
  waitFromUs: number;
  /** Where the longest stretch with the lock covered by nothing began. */
  judgedFromUs: number;
  untilUs: number;
  outcome: "granted" | "gave-up" | "still-waiting";
  /** That stretch's length, ms. */
  gapMs: number;
  boundMs: number;
}

export interface CrashedHolder {
  lock: string;
  client: string;
  grantId?: string;
  crashUs: number;
  deadlineUs: number;
  waiters: string[];
}

/** A holder that held (or kept extending) longer than the bound while others waited: legitimate, not a failure. */
export interface LongHold {
  lock: string;
  client: string;
  grantId?: string;
  fromUs: number;
  untilUs: number;
  heldMs: number;
  extends: number;
  waiters: string[];
}

export interface WaitVerdicts {
  slow: SlowWait[];
  slowTotal?: number;
  judged: number;
  unjudged: number;
  /** Judged waits that ended without the lock, nobody granted it meanwhile. */
  unserved: Array<{ client: string; lock: string; waitedMs: number }>;
  unservedTotal?: number;
}

export interface CrashedHoldersVerdict {
  stuck: CrashedHolder[];
  stuckTotal?: number;
  judged: number;
}

export function livenessResult(
  waits: WaitVerdicts,
  crashed: CrashedHoldersVerdict,
  unhealed: boolean,
  boundMs: number,
  ttlMs: number,
  longHolds: { list: LongHold[]; total: number },
): CheckResult {
  const slowTotal = waits.slowTotal ?? waits.slow.length;
  const stuckTotal = crashed.stuckTotal ?? crashed.stuck.length;
  const unservedTotal = waits.unservedTotal ?? waits.unserved.length;
  const stats = {
    waitsJudged: waits.judged,
    waitsUnjudged: waits.unjudged,
    waitsNeverGranted: unservedTotal,
    slowWaits: slowTotal,
    longHolds: longHolds.total,
    crashedHoldersJudged: crashed.judged,
    crashedHoldersStuck: stuckTotal,
    boundMs,
    ttlMs,
  };
  const long = longHolds.list.slice(0, WITNESS_MAX);
  if (slowTotal > 0 || stuckTotal > 0) {
    const parts: string[] = [];
    if (slowTotal > 0) {
      const w = waits.slow[0]!;
      parts.push(
        `${slowTotal} wait(s) had the lock free, with no fault and no live holder, for longer than the ${boundMs} ms bound (first: ${w.client} on "${w.lock}", ${w.gapMs} ms from ${sec(w.judgedFromUs)})`,
      );
    }
    if (stuckTotal > 0) {
      const s = crashed.stuck[0]!;
      parts.push(`${stuckTotal} lock(s) of crashed holders not re-granted in time (first: "${s.lock}" held by ${s.client}, crashed at ${s.crashUs} µs)`);
    }
    return {
      checker: LIVENESS,
      valid: false,
      summary: parts.join("; "),
      witness: { slowWaits: waits.slow.slice(0, WITNESS_MAX), crashedHolders: crashed.stuck.slice(0, WITNESS_MAX), longHolds: long, boundMs },
      stats,
    };
  }
  if (unhealed && waits.unjudged > 0)
    return {
      checker: LIVENESS,
      valid: "unknown",
      summary: `faults still active when the history ends: ${waits.unjudged} wait(s) could not be judged in full`,
      stats,
    };
  if (waits.judged === 0 && crashed.judged === 0) return { checker: LIVENESS, valid: true, summary: "no waits to judge", skipped: "no waits to judge", stats };
  return {
    checker: LIVENESS,
    valid: true,
    summary: passedSummary(waits, crashed.judged, boundMs, unservedTotal, longHolds),
    ...(long.length > 0 ? { witness: { longHolds: long } } : {}),
    stats,
  };
}

/** What a pass means, in words that match the facts: how many waits, any never granted, any long legitimate holds. */
function passedSummary(waits: WaitVerdicts, crashes: number, boundMs: number, unservedTotal: number, longHolds: { list: LongHold[]; total: number }): string {
  const first = waits.unserved[0];
  const h = longHolds.list[0];
  return (
    `no wait had the lock free (no fault, no live holder) for longer than the ${boundMs} ms bound (${waits.judged} wait(s) judged)` +
    (crashes > 0 ? `; ${crashes} crashed holder(s) replaced in time` : "") +
    (first
      ? `; ${first.client} waited ${(first.waitedMs / 1000).toFixed(1)} s and was never granted${unservedTotal > 1 ? ` (${unservedTotal} such waits)` : ""}`
      : "") +
    (h
      ? `; ${longHolds.total} long hold(s), not failures: ${h.client} held "${h.lock}" ${(h.heldMs / 1000).toFixed(1)} s${h.extends > 0 ? ` (extended ${h.extends} times)` : ""} while ${h.waiters.join(", ")} waited`
      : "")
  );
}

const sec = timeText;
