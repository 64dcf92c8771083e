import { describe, expect, it } from "vitest";
import { exitCodeFor } from "../../cli/commands/run.js";
import { realExitCode } from "../../cli/commands/real.js";
import { sweepExitCode } from "../../harness/sweep/exit.js";
import { EXIT } from "../../harness/exit-codes.js";
import type { RunRecord } from "../../reports/types.js";
import type { RealRunRecord } from "../../real/record.js";
import type { SweepSummary } from "../../harness/sweep/summary.js";
import type { Outcome } from "../../checkers/run-all.js";

/** The verdict fields the exit rules read, for a safe-checker run of the given outcome. */
const record = (outcome: Outcome, expectationMet: boolean): RunRecord =>
  ({
    verdicts: { outcome, safety: outcome === "unsafe" ? false : true, liveness: true, valid: outcome === "unsafe" ? false : true },
    expectationMet,
  }) as unknown as RunRecord;
const real = (outcome: Outcome, expectationMet: boolean): RealRunRecord =>
  ({ ...record(outcome, expectationMet), real: { checks: [] } }) as unknown as RealRunRecord;
const sweep = (outcomes: Partial<Record<Outcome, number>>, matched: number): SweepSummary => {
  const runs = Object.values(outcomes).reduce((a, b) => a + b, 0);
  const rate = { violations: outcomes.unsafe ?? 0, unknown: 0, rate: 0, ci95: [0, 0] };
  return { runs, outcomes, safety: rate, liveness: { ...rate, violations: 0 }, expected: { verdict: "safe", matched, rate: 0 } } as unknown as SweepSummary;
};

describe("exit code 8: a run that was not challenged", () => {
  it("lockstep run: 8 with or without --ok-if-expected; a challenged safe run stays 0", () => {
    expect(exitCodeFor(record("not-challenged", false), false)).toBe(EXIT.notChallenged);
    expect(exitCodeFor(record("not-challenged", false), true)).toBe(EXIT.notChallenged);
    expect(exitCodeFor(record("safe", true), false)).toBe(EXIT.ok);
    expect(exitCodeFor(record("safe", true), true)).toBe(EXIT.ok);
    expect(exitCodeFor(record("unsafe", false), true)).toBe(EXIT.unexpected);
  });

  it("lockstep sweep: a violation wins; else 8 when some run was not challenged; --ok-if-expected says 6 only for another verdict", () => {
    expect(sweepExitCode(sweep({ safe: 8, "not-challenged": 2 }, 8), false)).toBe(EXIT.notChallenged);
    expect(sweepExitCode(sweep({ safe: 8, "not-challenged": 2 }, 8), true)).toBe(EXIT.notChallenged);
    expect(sweepExitCode(sweep({ unsafe: 1, "not-challenged": 2, safe: 7 }, 7), false)).toBe(EXIT.safetyViolation);
    expect(sweepExitCode(sweep({ unsafe: 1, "not-challenged": 2, safe: 7 }, 7), true)).toBe(EXIT.unexpected);
    expect(sweepExitCode(sweep({ safe: 10 }, 10), false)).toBe(EXIT.ok);
  });

  it("lockstep real: the same rule over its runs", () => {
    expect(realExitCode([real("safe", true), real("not-challenged", false)], false)).toBe(EXIT.notChallenged);
    expect(realExitCode([real("safe", true), real("not-challenged", false)], true)).toBe(EXIT.notChallenged);
    expect(realExitCode([real("safe", true), real("unsafe", false)], true)).toBe(EXIT.unexpected);
    expect(realExitCode([real("safe", true)], false)).toBe(EXIT.ok);
  });
});
