import type { CheckContext } from "../checkers/types.js";
import type { Scenario } from "../scenarios/schema.js";

/** What the checkers are told about a scenario's run. */
export function checkContextFor(s: Scenario): CheckContext {
  const o = (s.designOptions ?? {}) as { sessionTimeoutMs?: number };
  return {
    ttlMs: s.workload.ttlMs,
    sessionTimeoutMs: typeof o.sessionTimeoutMs === "number" ? o.sessionTimeoutMs : undefined,
    clockDriftPpmMax: s.checks.clockDriftPpmMax,
    fencing: s.workload.fencing,
    livenessBoundMs: s.checks.livenessBoundMs,
    ...(s.challenge ? { challenge: s.challenge } : {}),
  };
}
