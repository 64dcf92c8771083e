/**
 * The work budget every checker runs under: counted steps, never wall time, so the
 * same history and budget give the same verdict on any machine. A checker counts the
 * work it does (events scanned, heap operations, model steps, candidates compared);
 * past `stepsMax` it stops and says "unknown" (never "pass"), naming the budget and the
 * flag that raises it. Each checker gets the whole budget.
 */
import type { CheckContext, CheckResult } from "./types.js";

/** Default steps per checker: a 1M-op history needs a few million, a pathological one stops in seconds. */
export const STEPS_MAX_DEFAULT = 50_000_000;

/** How to raise the budget, for every "unknown" that a budget caused. */
export const STEPS_FLAG = "--steps-max";

export function stepsMaxOf(ctx: CheckContext): number {
  return ctx.stepsMax ?? STEPS_MAX_DEFAULT;
}

/** Thrown by WorkMeter when the budget is spent; caught by the checker that owns the meter. */
export class BudgetExhausted extends Error {
  constructor(readonly stepsMax: number) {
    super(`work budget of ${stepsMax} steps spent`);
    this.name = "BudgetExhausted";
  }
}

export class WorkMeter {
  steps = 0;
  constructor(readonly stepsMax: number) {}
  /** Count n steps of work; throws BudgetExhausted once past the budget. */
  tick(n = 1): void {
    this.steps += n;
    if (this.steps > this.stepsMax) throw new BudgetExhausted(this.stepsMax);
  }
}

/** The "unknown" a checker returns when its budget ran out while doing `what`. */
export function budgetUnknown(checker: string, stepsMax: number, what: string, stats: Record<string, number> = {}): CheckResult {
  return {
    checker,
    valid: "unknown",
    summary: `work budget of ${stepsMax} steps hit while ${what}; nothing found so far; raise it with ${STEPS_FLAG} N`,
    stats: { ...stats, stepsMax },
    witness: { budget: { stepsMax }, raiseWith: STEPS_FLAG },
  };
}

/**
 * Run a checker body under a meter: the body's BudgetExhausted becomes budgetUnknown,
 * with `what()` saying how far it got. Any other error propagates.
 */
export function metered(checker: string, ctx: CheckContext, what: (meter: WorkMeter) => string, body: (meter: WorkMeter) => CheckResult): CheckResult {
  const meter = new WorkMeter(stepsMaxOf(ctx));
  try {
    return body(meter);
  } catch (e) {
    if (e instanceof BudgetExhausted) return budgetUnknown(checker, meter.stepsMax, what(meter), { steps: meter.stepsMax });
    throw e;
  }
}
