/**
 * lockstep's public API (`import { check } from "lockstep"`), for a user's own tests:
 * run a scenario — a shipped one, a file, or either on a real lock library or your own
 * adapter — with a seed, and get the history and the checkers' verdicts. Everything here
 * is deterministic: the same scenario and seed give the same history, byte for byte.
 *
 *   import { check } from "lockstep";
 *   const r = check("naive-gc-pause", 1, { lock: "./my-lock.cjs" });
 *   expect(r.outcome).toBe("unsafe");
 */
import { loadScenario, allScenarios } from "../scenarios/index.js";
import { runScenario, type RunOutput } from "../harness/runner.js";
import { runCheckers, type Verdicts } from "../checkers/run-all.js";
import { checkContextFor } from "../harness/check-context.js";
import { withLibrary } from "../scenarios/with-library.js";
import { replayCommand } from "../harness/replay-command.js";
import type { Scenario } from "../scenarios/schema.js";
import { runSoak } from "../harness/soak.js";
import type { HistoryEvent } from "../sim/history.js";

export { loadScenario, allScenarios, runScenario, runCheckers, checkContextFor, withLibrary };
export { BUILTIN_ADAPTERS, type AdapterInstance, type AdapterModule } from "../designs/library/adapter.js";
export { InputError, SimLimitError, SimulationStopError } from "../sim/errors.js";
export { SimulationEscapeError, LibraryError, LibraryBoundError } from "../sim/sandbox/errors.js";
export { NondeterminismError } from "../harness/determinism.js";
export type { Scenario, HistoryEvent, RunOutput, Verdicts };

export interface CheckResultSummary {
  scenario: Scenario;
  seed: number;
  outcome: Verdicts["outcome"];
  verdicts: Verdicts;
  history: HistoryEvent[];
  /** The command that replays this run. */
  replay: string;
}

/**
 * Run `scenario` (a name, a path, or a loaded Scenario) with `seed` and check it.
 * `lock`: run it on a real lock library instead (a built-in adapter name or a path to yours).
 */
export function check(scenario: string | Scenario, seed: number, options: { lock?: string } = {}): CheckResultSummary {
  let s = typeof scenario === "string" ? loadScenario(scenario) : scenario;
  if (options.lock !== undefined) s = withLibrary(s, options.lock);
  const run = runScenario(s, seed);
  const verdicts = runCheckers(run.history, checkContextFor(s));
  return { scenario: s, seed, outcome: verdicts.outcome, verdicts, history: run.history, replay: replayCommand(s, seed) };
}

export interface SoakResultSummary {
  scenario: Scenario;
  seed: number;
  outcome: Verdicts["outcome"];
  verdicts: Verdicts;
  /** The last events the checkers read (the history itself is never held). */
  tail: HistoryEvent[];
  replay: string;
}

/**
 * A long run, as `lockstep run --duration`: `scenario`'s workload for `durationMs` of
 * simulated time (its nemesis drawn again every scenario length), every checker judging
 * the history online, in memory bounded by the clients and locks, not by the run's length.
 */
export function soak(scenario: string | Scenario, seed: number, options: { durationMs: number; lock?: string }): SoakResultSummary {
  let s = typeof scenario === "string" ? loadScenario(scenario) : scenario;
  if (options.lock !== undefined) s = withLibrary(s, options.lock);
  const r = runSoak(s, seed, { durationMs: options.durationMs });
  return { scenario: { ...s, durationMs: options.durationMs }, seed, outcome: r.verdicts.outcome, verdicts: r.verdicts, tail: r.tail, replay: r.replay };
}
