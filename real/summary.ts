// Several real runs of one scenario: their outcome counts (what `lockstep sweep` reports for
// simulated seeds, for the sim-vs-real table), written as summary.json beside run-<i>/.
import { loadFigures, oneMinuteLoad, type LoadFigures } from "./load.js";
import type { RealRunRecord } from "./record.js";

export type { LoadFigures } from "./load.js";

/** What a batch knows without any finished run: the scenario, the runs asked for, how it ended, the load. */
export interface RealBatch {
  scenario: string;
  design: string;
  expect: string;
  note: string;
  timeScale: number;
  runsPlanned: number;
  /** The run that stopped the batch before it finished (an error, or a signal), and why. */
  stoppedBy?: { run: number; reason: string };
  /** 1-minute load average read before each run and at the end: a real run's outcome can depend on it. */
  loadSamples: number[];
}

/** Read the 1-minute load average into the batch (before each run and at its end). */
export function sampleLoad(batch: RealBatch): void {
  batch.loadSamples.push(oneMinuteLoad());
}

export interface RealSummary {
  scenario: string;
  design: string;
  expect: string;
  note: string;
  runs: number;
  runsPlanned: number;
  /** Set when the batch ended before its last run: which run stopped it and why. */
  stoppedBy?: { run: number; reason: string };
  load: LoadFigures;
  timeScale: number;
  /** Outcome → number of runs. */
  outcomes: Record<string, number>;
  expected: { matched: number; rate: number };
  safetyViolations: number;
  /** Runs whose real-run checks failed (their verdicts do not count as evidence). */
  invalidRuns: number;
  wallMs: { total: number; max: number };
  versions: { servers: Record<string, string>; packages: Record<string, string> };
  perRun: Array<{ run: number; outcome: string; expectationMet: boolean; wallMs: number; checksHold: boolean; dir: string }>;
  /**
   * A random nemesis: outcome counts of the simulator on the runs' seeds (every drawn step;
   * and the performed steps alone, where real mode left some out) beside the real runs'.
   */
  simVsReal?: { sim: Record<string, number>; simPerformedOnly: Record<string, number>; real: Record<string, number> };
}

const countOf = (xs: readonly string[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
};

function simVsReal(records: readonly RealRunRecord[]): Pick<RealSummary, "simVsReal"> {
  const rows = records.flatMap((r) => (r.real.nemesis ? [{ row: r.real.nemesis.simRow, real: r.verdicts.outcome }] : []));
  if (rows.length === 0) return {};
  return {
    simVsReal: {
      sim: countOf(rows.map((r) => r.row.sim)),
      simPerformedOnly: countOf(rows.map((r) => r.row.simPerformed ?? r.row.sim)),
      real: countOf(rows.map((r) => r.real)),
    },
  };
}

export function summarize(records: readonly RealRunRecord[], dirs: readonly string[], batch: RealBatch): RealSummary {
  const outcomes = countOf(records.map((r) => r.verdicts.outcome));
  const matched = records.filter((r) => r.expectationMet).length;
  const servers: Record<string, string> = {};
  const packages: Record<string, string> = {};
  for (const r of records) {
    for (const s of r.real.servers) servers[s.software ?? "redis-server"] = s.version;
    for (const c of r.real.clients) Object.assign(packages, c.packages);
  }
  const walls = records.map((r) => r.real.wallMs);
  return {
    scenario: batch.scenario,
    design: batch.design,
    expect: batch.expect,
    note: batch.note,
    runs: records.length,
    runsPlanned: batch.runsPlanned,
    ...(batch.stoppedBy ? { stoppedBy: batch.stoppedBy } : {}),
    load: loadFigures(batch.loadSamples),
    timeScale: batch.timeScale,
    outcomes,
    expected: { matched, rate: records.length ? matched / records.length : 0 },
    safetyViolations: records.filter((r) => r.verdicts.safety === false).length,
    invalidRuns: records.filter((r) => !checksHold(r)).length,
    wallMs: { total: walls.reduce((a, b) => a + b, 0), max: walls.length ? Math.max(...walls) : 0 },
    versions: { servers, packages },
    perRun: records.map((r, i) => ({
      run: r.real.run,
      outcome: r.verdicts.outcome,
      expectationMet: r.expectationMet,
      wallMs: r.real.wallMs,
      checksHold: checksHold(r),
      dir: dirs[i]!,
    })),
    ...simVsReal(records),
  };
}

export function checksHold(r: RealRunRecord): boolean {
  return r.real.checks.every((c) => c.ok);
}
