/**
 * Running a scenario over seeds and checking its expected verdict, shared by the
 * scenario test files: every deviating seed is reported with the command that
 * replays it.
 */
import { expect, it } from "vitest";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import { replayCommand } from "../../harness/artifacts.js";
import type { Scenario } from "../../scenarios/schema.js";
import { loadScenario } from "../../scenarios/index.js";

export const SWEEP_SEEDS = 200;

/** One run, checked: its outcome, whether mutual exclusion held, and the run itself. */
export function outcomeOf(s: Scenario, seed: number) {
  const out = runScenario(s, seed);
  const v = runCheckers(out.history, checkContextFor(s));
  const me = v.results.find((r) => r.checker === "mutual-exclusion");
  return { outcome: v.outcome, mutualExclusion: me?.valid, history: out.history, meta: out.meta, verdicts: v };
}

export interface SeedDeviation {
  seed: number;
  outcome: string;
  replay: string;
}

export interface SweepResult {
  /** Runs per outcome. */
  counts: Record<string, number>;
  /** Seeds whose outcome differs from the scenario's expectation (empty: all as expected). */
  unexpected: SeedDeviation[];
  /** Seeds on which the mutual-exclusion checker found two holders. */
  exclusionViolatedSeeds: number[];
}

/** Seeds 1..n of `s`. */
export function sweep(s: Scenario, n = SWEEP_SEEDS): SweepResult {
  const counts: Record<string, number> = {};
  const unexpected: SeedDeviation[] = [];
  const exclusionViolatedSeeds: number[] = [];
  for (let seed = 1; seed <= n; seed++) {
    const { outcome, mutualExclusion } = outcomeOf(s, seed);
    counts[outcome] = (counts[outcome] ?? 0) + 1;
    if (outcome !== s.expect) unexpected.push({ seed, outcome, replay: replayCommand(s, seed) });
    if (mutualExclusion === false) exclusionViolatedSeeds.push(seed);
  }
  return { counts, unexpected, exclusionViolatedSeeds };
}

/** A failure message: the counts and how to replay the first deviating seed. */
export function sweepMessage(s: Scenario, r: SweepResult, deviating: number | undefined = r.unexpected[0]?.seed): string {
  const replay = deviating === undefined ? "" : `; replay: ${replayCommand(s, deviating)}`;
  return `${s.name}: ${JSON.stringify(r.counts)}${replay}`;
}

/** The first of seeds 1..n whose mutual-exclusion result goes against a sweep's rule (safe: never two holders; otherwise: two holders on every seed). */
export function firstExclusionDeviation(s: Scenario, r: SweepResult, n: number): number | undefined {
  if (s.expect === "safe") return r.exclusionViolatedSeeds[0];
  const violated = new Set(r.exclusionViolatedSeeds);
  for (let seed = 1; seed <= n; seed++) if (!violated.has(seed)) return seed;
  return undefined;
}

/** Registers two tests: `s` gives its expected verdict on its own seed, and on each of seeds 1..n. */
export function itGivesItsExpectedVerdict(s: Scenario, n = SWEEP_SEEDS): void {
  it(`${s.name}: ${s.expect} on its own seed ${s.seed}`, () => {
    expect(outcomeOf(s, s.seed).outcome, `replay: ${replayCommand(s, s.seed)}`).toBe(s.expect);
  });
  it(`${s.name}: ${s.expect} on each of ${n} seeds`, () => {
    const r = sweep(s, n);
    expect(r.unexpected, sweepMessage(s, r)).toEqual([]);
  });
}

/**
 * Registers one test: every one of seeds 1..n gives the registered scenario `name` its
 * expected verdict, with two holders on none of them (safe) or on all of them.
 */
export function itSweepsToItsVerdict(name: string, n: number): void {
  it(`${name}: its expected verdict on ${n}/${n} seeds`, () => {
    const s = loadScenario(name);
    const r = sweep(s, n);
    expect(r.counts, sweepMessage(s, r)).toEqual({ [s.expect]: n });
    const exclusionViolated = r.exclusionViolatedSeeds.length;
    expect(exclusionViolated, sweepMessage(s, r, firstExclusionDeviation(s, r, n))).toBe(s.expect === "safe" ? 0 : n);
  });
}
