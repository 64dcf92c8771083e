/** The debate's runs: each claim's scenario over seeds, classified as the page classifies its one run. */
import type { DebateTest } from "../reports/debate-claims.js";
import { classify, type SeedTally } from "../reports/debate.js";
import { runAvailability } from "../reports/availability.js";
import { runCheckers, type Outcome } from "../checkers/run-all.js";
import type { HistoryEvent } from "../sim/history.js";
import type { Scenario } from "../scenarios/schema.js";
import { checkContextFor } from "./check-context.js";
import { runScenario } from "./runner.js";
import { wilson95 } from "./sweep/wilson.js";
import { buildRecord, writeRunArtifacts } from "./artifacts.js";
import { thumbnailSvg } from "../reports/debate-thumb.js";
import type { RunRecord } from "../reports/types.js";

/** What the page needs of one seed's run. */
export interface SeedRun {
  seed: number;
  outcome: Outcome;
  challenged: boolean;
  refused: boolean;
}

export function seedRun(s: Scenario, seed: number): SeedRun {
  const run = runScenario(s, seed);
  const v = runCheckers(run.history, checkContextFor(s));
  const a = runAvailability(run.history, v.challenge.challenged);
  return { seed, outcome: v.outcome, challenged: a.challenged, refused: refusedIn(run.history, a.failedAcquires) };
}

/** A client refused a lock: an acquire failed, or a Redlock client counted an acquire a miss (and retried). */
export function refusedIn(history: readonly HistoryEvent[], failedAcquires: number): boolean {
  return failedAcquires > 0 || history.some((e) => e.f === "redlock-miss" && (e.value as { op?: unknown } | undefined)?.op === "acquire");
}

/** Classify each seed's run against the test, as the page does its one run. */
export function tally(test: DebateTest, runs: readonly SeedRun[]): SeedTally {
  const t = { from: runs[0]?.seed ?? 1, to: runs.at(-1)?.seed ?? 0, borneOut: 0, notBorneOut: 0, untested: 0 };
  for (const r of runs) {
    const b = classify(test, r.outcome, r.challenged, r.refused);
    if (b === "borne-out") t.borneOut++;
    else if (b === "not-borne-out") t.notBorneOut++;
    else t.untested++;
  }
  return { ...t, ci95: wilson95(t.borneOut, t.borneOut + t.notBorneOut) };
}

/** A claim's scenario as the page shows it: its one run (files under dir), what that run did, and its seeds' runs. */
export interface ClaimRun {
  record: RunRecord;
  challenged: boolean;
  refused: boolean;
  thumb: string;
  seeds: SeedRun[];
}

/** Run the scenario once on `seed` (its files written to dir), then on seeds 1..seedsTo; onSeed(i) before each of those. */
export function runClaimScenario(scenario: Scenario, seed: number, dir: string, seedsTo: number, onSeed: (i: number) => void): ClaimRun {
  const run = runScenario(scenario, seed);
  const verdicts = runCheckers(run.history, checkContextFor(scenario));
  const record = buildRecord(scenario, seed, run, verdicts);
  writeRunArtifacts(dir, record, run.history);
  const a = runAvailability(run.history, verdicts.challenge.challenged);
  const seeds = Array.from({ length: seedsTo }, (_, i) => {
    onSeed(i + 1);
    return seedRun(scenario, i + 1);
  });
  return { record, challenged: a.challenged, refused: refusedIn(run.history, a.failedAcquires), thumb: thumbnailSvg(record, run.history), seeds };
}
