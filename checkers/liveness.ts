/**
 * liveness: every wait for a lock is served unless something legitimate stands in the
 * way (a fault, a live holder): the rule is in liveness-online.ts, which judges the
 * history as it streams. The batch checker finds the TTL (ctx.sessionTimeoutMs, else
 * ctx.ttlMs, else the largest TTL the acquires asked for) and feeds it the whole
 * history under the work budget, so the online and batch forms are the same code.
 * Only faults (nemesis events) count: standing network conditions (a scenario's
 * `network.links`) leave no event, and liveness is judged under them.
 */
import type { HistoryEvent } from "../sim/history.js";
import type { CheckContext, CheckResult, OnlineChecker } from "./types.js";
import { metered } from "./budget.js";
import { BufferedChecker } from "./buffered.js";
import { LivenessJudge } from "./liveness-online.js";
import { LIVENESS } from "./liveness-verdict.js";

export { LIVENESS } from "./liveness-verdict.js";
export type { CrashedHolder, LongHold, SlowWait } from "./liveness-verdict.js";

/** The TTL the acquires asked for (the largest), when the context gives none. */
function acquiresTtlMs(history: readonly HistoryEvent[]): number | undefined {
  let ttlMs: number | undefined;
  for (const e of history) {
    if (e.f !== "acquire" || e.type === "fail" || e.type === "info") continue;
    const t = (e.value as { ttlMs?: unknown } | undefined)?.ttlMs;
    if (typeof t === "number") ttlMs = Math.max(ttlMs ?? 0, t);
  }
  return ttlMs;
}

/** Steps: one per event read, per wait cut at a cover's start, per live hold looked at. */
export function liveness(history: readonly HistoryEvent[], ctx: CheckContext): CheckResult {
  const ttlMs = ctx.sessionTimeoutMs ?? ctx.ttlMs ?? acquiresTtlMs(history);
  const boundMs = ctx.livenessBoundMs ?? (ttlMs !== undefined ? 2 * ttlMs : undefined);
  if (ttlMs === undefined || boundMs === undefined)
    return {
      checker: LIVENESS,
      valid: "unknown",
      summary: "no TTL known (pass --ttl-ms or a liveness bound): cannot tell a slow grant from a lease running out",
    };
  let read = 0;
  return metered(
    LIVENESS,
    ctx,
    () => `judging waits (${read} of ${history.length} events read)`,
    (meter) => {
      const judge = new LivenessJudge(ctx, ttlMs, boundMs, (n) => meter.tick(n));
      for (const e of history) {
        judge.push(e);
        read++;
      }
      return judge.result();
    },
  );
}

/** The online form needs the TTL up front; without one, the batch checker is fed (buffered). */
export function onlineLiveness(ctx: CheckContext): OnlineChecker {
  const ttlMs = ctx.sessionTimeoutMs ?? ctx.ttlMs;
  if (ttlMs === undefined) return new BufferedChecker(LIVENESS, liveness, ctx);
  return new LivenessJudge(ctx, ttlMs, ctx.livenessBoundMs ?? 2 * ttlMs);
}
