import fc from "fast-check";
import type { Scenario } from "../../scenarios/schema.js";
import { applyTweak, explorationArb, type Exploration, type FaultSpace } from "./arbitraries.js";

/**
 * Property-based exploration: fast-check draws fault schedules and workload
 * variations, each becomes a scenario run on the simulator, and the property is the
 * design's safety. On a violation fast-check shrinks the drawn value to a smallest
 * one that still violates it. Deterministic for a given fast-check seed: the
 * simulator is pure and fast-check's own randomness is seeded.
 */
export interface ExploreOptions {
  /** The scenario the draws vary (faults replaced, workload tweaked). */
  base: Scenario;
  space: FaultSpace;
  /** Runs drawn before giving up (fast-check numRuns). */
  runs: number;
  /** Runs spent shrinking at most; past it the smallest found so far is kept. */
  shrinkRunsMax: number;
  /** fast-check's seed. */
  seed: number;
  /** Whether one run of `scenario` with `seed` violates safety (pure). */
  violates(scenario: Scenario, seed: number): boolean;
  /** The property while shrinking, when a cheaper one stands for it there (the caller checks the result). */
  shrinkViolates?(scenario: Scenario, seed: number): boolean;
  /** Hears each run: drawn ones while searching, then shrinking ones (for progress). */
  onRun?(phase: "search" | "shrink", runs: number): void;
}

export interface ExploreResult {
  found: boolean;
  /** Runs drawn until the first violation (or all of them). */
  runs: number;
  /** Runs spent shrinking, and how many of them were accepted as smaller counterexamples. */
  shrinkRuns: number;
  shrinks: number;
  /** The first violating draw, before shrinking. */
  original?: Exploration;
  /** The shrunk counterexample, as a runnable scenario, and its simulation seed. */
  counterexample?: { exploration: Exploration; scenario: Scenario; seed: number };
}

/** The scenario one draw describes. */
export function scenarioFor(base: Scenario, e: Exploration): Scenario {
  return { ...base, seed: e.seed, workload: applyTweak(base.workload, e.workload), faults: e.faults };
}

export function explore(o: ExploreOptions): ExploreResult {
  let runs = 0;
  let shrinkRuns = 0;
  let original: Exploration | undefined;
  const property = fc.property(explorationArb(o.space, o.base.workload), (e) => {
    if (original === undefined) {
      runs++;
      o.onRun?.("search", runs);
    } else if (++shrinkRuns > o.shrinkRunsMax)
      return true; // budget spent: accept nothing smaller
    else o.onRun?.("shrink", shrinkRuns);
    const judge = original === undefined ? o.violates : (o.shrinkViolates ?? o.violates);
    const bad = judge(scenarioFor(o.base, e), e.seed);
    if (bad && original === undefined) original = e;
    return !bad;
  });
  const details = fc.check(property, { seed: o.seed, numRuns: o.runs });
  if (!details.failed || !details.counterexample) return { found: false, runs, shrinkRuns: 0, shrinks: 0 };
  const [exploration] = details.counterexample;
  return {
    found: true,
    runs,
    shrinkRuns: Math.min(shrinkRuns, o.shrinkRunsMax),
    shrinks: details.numShrinks,
    original,
    counterexample: { exploration, scenario: scenarioFor(o.base, exploration), seed: exploration.seed },
  };
}
