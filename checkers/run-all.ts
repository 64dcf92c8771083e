import type { HistoryEvent } from "../sim/history.js";
import { CHECKERS } from "./index.js";
import { worstOf, type CheckContext, type CheckResult, type Verdict } from "./types.js";
import { judgeChallenge, type ChallengeResult } from "./challenge.js";

/**
 * Run every registered checker and classify the run:
 *  - unsafe: a safety checker failed and the data was harmed (a lost update, a stale
 *    write accepted) or nothing stopped the second holder;
 *  - unsafe-but-fenced: two clients held the lock at once, but the resource rejected
 *    the stale holder's writes and no update was lost;
 *  - liveness-loss: safe, but a waiter was not served within its bound;
 *  - not-challenged: no checker failed, but nothing in the run tested the lock (its
 *    challenge, checkers/challenge.ts, never happened), so "safe" would mean nothing;
 *  - safe: no checker failed, and the run was challenged.
 */
export type Outcome = "safe" | "unsafe" | "unsafe-but-fenced" | "liveness-loss" | "not-challenged" | "unknown";

export interface Verdicts {
  results: CheckResult[];
  safety: Verdict;
  liveness: Verdict;
  valid: Verdict;
  outcome: Outcome;
  /** Whether the run tested the lock at all, and why (not). */
  challenge: ChallengeResult;
}

/** Checkers whose failure means the lock itself was not exclusive (the data may still be fenced). */
const EXCLUSION = new Set(["mutual-exclusion", "linearizability"]);

export interface RunCheckersOptions {
  /** Why a checker does not apply to this history (it is then not run and does not count), or undefined. */
  notApplicable?: (checker: string) => string | undefined;
}

export function runCheckers(history: readonly HistoryEvent[], ctx: CheckContext, opts: RunCheckersOptions = {}): Verdicts {
  const results: CheckResult[] = [];
  for (const c of CHECKERS) {
    const reason = opts.notApplicable?.(c.name);
    if (reason !== undefined) {
      results.push({ checker: c.name, valid: true, summary: `not applicable: ${reason}`, skipped: reason });
      continue;
    }
    let r: CheckResult;
    try {
      r = c.check(history, ctx);
    } catch (err) {
      // A checker bug must not hide the other verdicts; it says it could not decide.
      r = { checker: c.name, valid: "unknown", summary: `checker crashed: ${(err as Error).message}` };
    }
    results.push({ ...r, checker: c.name });
  }
  const rejectedStale = history.some((e) => e.f === "storage-write" && e.type === "fail");
  return classify(results, rejectedStale, (safety) => challengeOf(history, ctx, safety));
}

/** The outcome from the checkers' results, whether the resource rejected a stale write, and the run's challenge. */
export function classify(results: CheckResult[], rejectedStale: boolean, challengeFor: (safety: Verdict) => ChallengeResult): Verdicts {
  const kindOf = (name: string) => CHECKERS.find((c) => c.name === name)?.kind ?? "safety";
  const safetyResults = results.filter((r) => kindOf(r.checker) === "safety");
  const safety = worstOf(safetyResults.map((r) => r.valid));
  const liveness = worstOf(results.filter((r) => kindOf(r.checker) === "liveness").map((r) => r.valid));
  const valid = worstOf([safety, liveness]);
  const harmFound = safetyResults.some((r) => !EXCLUSION.has(r.checker) && r.valid === false);
  let outcome: Outcome;
  if (safety === false) outcome = !harmFound && rejectedStale ? "unsafe-but-fenced" : "unsafe";
  else if (safety === "unknown") outcome = "unknown";
  else if (liveness === false) outcome = "liveness-loss";
  else outcome = liveness === "unknown" ? "unknown" : "safe";
  const challenge = challengeFor(safety);
  if (outcome === "safe" && !challenge.challenged) outcome = "not-challenged";
  return { results, safety, liveness, valid, outcome, challenge };
}

/**
 * The run's challenge by the scenario's rule. A violation needs two claims to meet, so
 * an unsafe run is challenged whatever the rule asked for (a scenario aimed at waits may
 * still break exclusion); the default rule's overlap then says where.
 */
function challengeOf(history: readonly HistoryEvent[], ctx: CheckContext, safety: Verdict): ChallengeResult {
  const judged = judgeChallenge(history, ctx.challenge, { ttlMs: ctx.ttlMs, sessionTimeoutMs: ctx.sessionTimeoutMs });
  if (judged.challenged || safety !== false) return judged;
  const overlap = judgeChallenge(history, { kind: "overlapping-belief" });
  return overlap.challenged ? overlap : { ...judged, challenged: true, why: `a safety checker found a violation (${judged.why})` };
}
