// Several real runs of one scenario: their outcome counts (what `lockstep sweep` reports for
// simulated seeds, for the sim-vs-real table), written as summary.json beside run-<i>/.
import type { RealRunRecord } from "./record.js";

export interface RealSummary {
  scenario: string;
  design: string;
  expect: string;
  note: string;
  runs: number;
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
}

export function summarize(records: readonly RealRunRecord[], dirs: readonly string[]): RealSummary {
  const first = records[0]!;
  const outcomes: Record<string, number> = {};
  for (const r of records) outcomes[r.verdicts.outcome] = (outcomes[r.verdicts.outcome] ?? 0) + 1;
  const matched = records.filter((r) => r.expectationMet).length;
  const servers: Record<string, string> = {};
  const packages: Record<string, string> = {};
  for (const r of records) {
    for (const s of r.real.servers) servers[s.software ?? "redis-server"] = s.version;
    for (const c of r.real.clients) Object.assign(packages, c.packages);
  }
  const walls = records.map((r) => r.real.wallMs);
  return {
    scenario: first.scenario.name,
    design: first.scenario.design,
    expect: first.scenario.expect,
    note: first.real.note,
    runs: records.length,
    timeScale: first.real.timeScale.factor,
    outcomes,
    expected: { matched, rate: matched / records.length },
    safetyViolations: records.filter((r) => r.verdicts.safety === false).length,
    invalidRuns: records.filter((r) => !checksHold(r)).length,
    wallMs: { total: walls.reduce((a, b) => a + b, 0), max: Math.max(...walls) },
    versions: { servers, packages },
    perRun: records.map((r, i) => ({
      run: r.real.run,
      outcome: r.verdicts.outcome,
      expectationMet: r.expectationMet,
      wallMs: r.real.wallMs,
      checksHold: checksHold(r),
      dir: dirs[i]!,
    })),
  };
}

export function checksHold(r: RealRunRecord): boolean {
  return r.real.checks.every((c) => c.ok);
}
