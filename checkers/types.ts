import type { ChallengeSpec } from "../scenarios/challenge-spec.js";
import type { HistoryEvent } from "../sim/history.js";

/** Tri-state verdict; composes worst-wins: true < "unknown" < false. */
export type Verdict = true | false | "unknown";

export interface CheckResult {
  /** Checker name as registered. */
  checker: string;
  valid: Verdict;
  /** One sentence a person can read: what was found. */
  summary: string;
  /** Evidence when invalid (two overlapping holds, a stale write, a non-linearizable prefix...). */
  witness?: unknown;
  /** Counters worth printing (holds seen, stale writes rejected, states explored...). */
  stats?: Record<string, number>;
  /** Set when the history lacks what this checker needs (e.g. no final read): the verdict is then `true` and says nothing. */
  skipped?: string;
}

/**
 * What a checker may know besides the history. Everything is optional: a history
 * imported from elsewhere comes with whatever the user passes on the command line.
 */
export interface CheckContext {
  /** Lease TTL the workload asked for, ms. */
  ttlMs?: number;
  /** Session timeout for session-based designs (Raft-ZK), ms. */
  sessionTimeoutMs?: number;
  /** Bound on client/server clock rate error the lease-lock model allows, ppm. */
  clockDriftPpmMax?: number;
  /** Whether the protected resource checks fencing tokens in this run. */
  fencing?: boolean;
  /** Liveness: how long after healing (plus one TTL) a waiter may wait, ms. */
  livenessBoundMs?: number;
  /** Work budget of every checker, in counted steps (checkers/budget.ts; default STEPS_MAX_DEFAULT). */
  stepsMax?: number;
  /** Search budget for the linearizability checker. */
  searchBudget?: { statesMax?: number; memoryMbMax?: number };
  /** Model name for the linearizability checker. */
  model?: string;
  /** The register models' value before the first write (check --initial-value); nil otherwise. */
  initialValue?: unknown;
  /**
   * The history records no client's belief (no `lapse` notes: imported from elsewhere),
   * so a hold ends at the lease its acquire reported (or an extend renewed) at the
   * latest, as the lease-lock model has it (checkers/holds.ts).
   */
  holdsEndAtLease?: boolean;
  /**
   * The history records no times (a Knossos history without :time): each event's timeUs is
   * its position in the file, so witnesses give positions (#4), not µs.
   */
  timeIsOrder?: boolean;
  /** What the run must show to have tested the lock (checkers/challenge.ts); absent: overlapping beliefs. */
  challenge?: ChallengeSpec;
}

export type Checker = (history: readonly HistoryEvent[], ctx: CheckContext) => CheckResult;

/**
 * A checker that reads the history as it streams (one event at a time, in order) and
 * holds only what can still matter, for runs too long to keep (`run --duration`). Its
 * verdict equals the batch checker's on the same history, or is "unknown" saying why
 * (a stated memory bound passed); never a different pass or fail.
 */
export interface OnlineChecker {
  push(e: HistoryEvent): void;
  /** The verdict, once the history has ended. */
  result(): CheckResult;
}

export function worstOf(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.some((v) => v === false)) return false;
  if (verdicts.some((v) => v === "unknown")) return "unknown";
  return true;
}
