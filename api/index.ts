/**
 * lockstep's public API (`import { check } from "lockstep"`), for a user's own tests:
 * run a scenario — a shipped one, a file, or either on a real lock library or your own
 * adapter — with a seed, and get the history and the checkers' verdicts. Everything here
 * is deterministic: the same scenario and seed give the same history, byte for byte.
 *
 *   import { check } from "lockstep";
 *   const r = check("naive-gc-pause", 1, { lock: "./my-lock.cjs" });
 *   expect(r.outcome).toBe("unsafe");
 *
 * `audit()` is `lockstep audit` for a team's own test suite: the same rows and the same
 * findings by cause as the command prints, for the same lock, seeds and attacks.
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
import { runAuditOnThreads, writeAuditFiles, type AuditResult } from "../harness/audit/run.js";
import { join } from "node:path";
import { attacksNamed, lockUnderAudit } from "../harness/audit/lock.js";
import { defaultWorkers } from "../harness/sweep/pool.js";
import { realRunnable } from "../real/runnable.js";
import { confirmCauses } from "../real/confirm.js";

export { loadScenario, allScenarios, runScenario, runCheckers, checkContextFor, withLibrary };
export { BUILTIN_ADAPTERS, type AdapterInstance, type AdapterModule } from "../designs/library/adapter.js";
export { InputError, SimLimitError, SimulationStopError } from "../sim/errors.js";
import { InputError } from "../sim/errors.js";
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

export type { AuditResult };
export type { CauseFinding, UnexplainedFinding } from "../harness/audit/diagnose.js";
export { CAUSES } from "../causes/index.js";

export interface AuditOptions {
  /** Seeds per attack (default 50, as `lockstep audit`). */
  seeds?: number;
  /** Attack names (default: the whole catalogue). */
  attacks?: string[];
  /** Redis nodes the adapter talks to (default: the built-in adapter's, else 1). */
  nodes?: number;
  /** The design's options, as a scenario file's designOptions (for an adapter: `{ options: {...} }`, handed to its create()). */
  designOptions?: Record<string, unknown>;
  /** Write audit.json, audit.html and the counterexamples here. */
  out?: string;
  /** Runs in parallel (default: the machine's cores); the result is the same for any count. */
  workers?: number;
  /** Also this many generated schedules over the lock's whole API (audit --explore). */
  explore?: number;
  /** Replay each cause's counterexample this many times on real redis-server, and the reference recipe beside it (needs `out`). */
  confirmReal?: number;
}

/**
 * Audit a lock as `lockstep audit --lock <lock>` does (or a built-in design with
 * `{ design }`): every attack over the seeds beside the backend's reference recipe, the
 * findings in your code by cause. `r.causes` is empty when no finding is your code's.
 *
 *   const r = await audit("./my-adapter.ts", { seeds: 20 });
 *   expect(r.causes.map((c) => c.id)).toEqual([]);
 */
export async function audit(lock: string | { design: string }, options: AuditOptions = {}): Promise<AuditResult> {
  const target = typeof lock === "string" ? { lock } : { design: lock.design };
  const under = lockUnderAudit({
    ...target,
    ...(options.designOptions ? { designOptions: options.designOptions } : {}),
    ...(options.nodes !== undefined ? { nodes: options.nodes } : {}),
  });
  if (options.confirmReal !== undefined && options.out === undefined)
    throw new InputError("<arg>", "confirmReal", "out too: the counterexamples real mode replays are written there");
  const result = await runAuditOnThreads(under, {
    seeds: options.seeds ?? 50,
    attacks: attacksNamed(options.attacks),
    workers: options.workers ?? defaultWorkers(),
    runnable: realRunnable,
    ...(options.out !== undefined ? { out: options.out } : {}),
    ...(options.explore !== undefined ? { explore: { draws: options.explore, seed: 1 } } : {}),
  });
  if (options.confirmReal !== undefined && options.out !== undefined) {
    await confirmCauses(result, under, { runs: options.confirmReal });
    writeAuditFiles(result, join(options.out, "audit.json"), { force: true });
  }
  return result;
}
