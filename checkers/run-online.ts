import type { HistoryEvent } from "../sim/history.js";
import { CHECKERS, type CheckerEntry } from "./index.js";
import { classify, type RunCheckersOptions, type Verdicts } from "./run-all.js";
import type { CheckContext, CheckResult, OnlineChecker, Verdict } from "./types.js";
import type { ChallengeResult } from "./challenge.js";
import { OnlineChallenge } from "./challenge-online.js";
import { BufferedChecker } from "./buffered.js";

/**
 * Every registered checker over a stream: runCheckers' verdicts for a history that is
 * never held whole (`run --duration`). Each checker with an online form reads the events
 * as they come; one without is fed its batch form (checkers/buffered.ts) up to a bound.
 */
export class OnlineVerdicts {
  private readonly checkers: Array<{ entry: CheckerEntry; online: OnlineChecker } | { entry: CheckerEntry; skipped: string }>;
  private rejectedStale = false;
  private readonly challenge: OnlineChallenge;
  /** The default rule's challenge too: an unsafe run is challenged whatever the scenario's rule (run-all.ts challengeOf). */
  private readonly overlap: OnlineChallenge | undefined;

  constructor(ctx: CheckContext, opts: RunCheckersOptions = {}) {
    this.checkers = CHECKERS.map((entry) => {
      const reason = opts.notApplicable?.(entry.name);
      if (reason !== undefined) return { entry, skipped: reason };
      return { entry, online: entry.online ? entry.online(ctx) : new BufferedChecker(entry.name, entry.check, ctx) };
    });
    this.challenge = new OnlineChallenge(ctx.challenge, { ttlMs: ctx.ttlMs, sessionTimeoutMs: ctx.sessionTimeoutMs });
    this.overlap = ctx.challenge?.kind !== "overlapping-belief" ? new OnlineChallenge({ kind: "overlapping-belief" }) : undefined;
  }

  push = (e: HistoryEvent): void => {
    if (e.f === "storage-write" && e.type === "fail") this.rejectedStale = true;
    for (const c of this.checkers) if ("online" in c) c.online.push(e);
    this.challenge.push(e);
    this.overlap?.push(e);
  };

  result(): Verdicts {
    const results: CheckResult[] = this.checkers.map((c) => {
      if ("skipped" in c) return { checker: c.entry.name, valid: true, summary: `not applicable: ${c.skipped}`, skipped: c.skipped };
      try {
        return { ...c.online.result(), checker: c.entry.name };
      } catch (err) {
        return { checker: c.entry.name, valid: "unknown", summary: `checker crashed: ${(err as Error).message}` };
      }
    });
    return classify(results, this.rejectedStale, (safety) => this.challengeOf(safety));
  }

  private challengeOf(safety: Verdict): ChallengeResult {
    const judged = this.challenge.result();
    if (judged.challenged || safety !== false) return judged;
    const overlap = this.overlap ? this.overlap.result() : judged;
    return overlap.challenged ? overlap : { ...judged, challenged: true, why: `a safety checker found a violation (${judged.why})` };
  }
}
