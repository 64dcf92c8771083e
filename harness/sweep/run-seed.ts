import type { Scenario } from "../../scenarios/schema.js";
import { runScenario } from "../runner.js";
import { checkDeterminism } from "../determinism.js";
import { runCheckers, type Outcome } from "../../checkers/run-all.js";
import type { Verdict } from "../../checkers/types.js";
import { checkContextFor } from "../check-context.js";
import { runAvailability, type RunAvailability } from "../../reports/availability.js";

/**
 * What a sweep keeps of one run: a pure function of (scenario, seed), small enough to
 * pass between threads by the thousand. The history is not kept: a failing seed's
 * report is made by running that seed again, which gives the same history.
 */
export interface SeedResult {
  seed: number;
  outcome: Outcome;
  safety: Verdict;
  liveness: Verdict;
  valid: Verdict;
  /** Each checker's verdict, in registry order. */
  checkers: Record<string, Verdict>;
  /** The checkers that had nothing to judge in this run (their `true` says nothing); absent when none. */
  notApplicable?: string[];
  expectationMet: boolean;
  eventsRun: number;
  /** True time the run covered, µs (for simulated-seconds-per-second figures). */
  endUs: number;
  /** Grants, failed acquires, idle time while waiting, whether a second client got near (reports/availability.ts). */
  availability: RunAvailability;
}

export function runSeed(scenario: Scenario, seed: number): SeedResult {
  const run = runScenario(scenario, seed);
  if (scenario.checkDeterminism) checkDeterminism(scenario, seed, run.history);
  const v = runCheckers(run.history, checkContextFor(scenario));
  const checkers: Record<string, Verdict> = {};
  for (const r of v.results) checkers[r.checker] = r.valid;
  const notApplicable = v.results.filter((r) => r.skipped !== undefined).map((r) => r.checker);
  return {
    seed,
    outcome: v.outcome,
    safety: v.safety,
    liveness: v.liveness,
    valid: v.valid,
    checkers,
    ...(notApplicable.length > 0 ? { notApplicable } : {}),
    expectationMet: v.outcome === scenario.expect,
    eventsRun: run.meta.eventsRun,
    endUs: run.meta.endUs,
    availability: runAvailability(run.history, v.challenge.challenged),
  };
}

/** A seed "fails" when some checker found a violation (an unknown verdict is not a failure). */
export function isFailing(r: SeedResult): boolean {
  return r.valid === false;
}

/**
 * Run one seed again and write its run directory (history.jsonl, results.json,
 * report.html). The artifacts module is loaded on demand: it pulls in the HTML
 * renderer, which a sweep that finds nothing never needs.
 */
export async function writeSeedReport(scenario: Scenario, seed: number, dir: string): Promise<void> {
  const { buildRecord, writeRunArtifacts } = await import("../artifacts.js");
  const run = runScenario(scenario, seed);
  const verdicts = runCheckers(run.history, checkContextFor(scenario));
  writeRunArtifacts(dir, buildRecord(scenario, seed, run, verdicts), run.history);
}
