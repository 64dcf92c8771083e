import { join, relative } from "node:path";
import type { Scenario } from "../../scenarios/schema.js";
import type { CompareCell, CompareMatrix } from "../../reports/types.js";
import { withLibrary } from "../../scenarios/with-library.js";
import { InputError } from "../../sim/errors.js";
import { runSeed } from "./run-seed.js";
import { runSweep } from "./sweep.js";
import { scenarioToJson } from "../explore/scenario-file.js";
import { writeJsonAtomic } from "./write.js";
import type { SeedRange } from "./range.js";
import type { SweepSummary } from "./summary.js";
import type { ProgressStream } from "./progress.js";

/**
 * The design × scenario matrix: each cell a sweep of one scenario run on one design.
 * A scenario runs on its own design as written; on another design with that design's
 * default options (its designOptions belong to its own design), if it can: a scenario
 * whose faults name another design's servers (redis-1 on a Raft cluster), or that
 * checks fencing tokens a design does not issue, leaves its cell empty, with the
 * reason in `skipped`.
 */
export interface CompareOptions {
  designs: string[];
  scenarios: Scenario[];
  range: SeedRange;
  workers: number;
  outDir: string;
  limit: number;
  progress?: ProgressStream | false;
}

export interface CompareResult {
  matrix: CompareMatrix;
  skipped: Array<{ design: string; scenario: string; reason: string }>;
  /** Each cell's sweep summary (its replay line names the file that replays it). */
  summaries: SweepSummary[];
}

/**
 * The scenario a cell runs: as written for its own design; on `library:<adapter>`, the
 * real library (scenarios/with-library.ts); on another design, its default options.
 */
export function scenarioOnDesign(s: Scenario, design: string): Scenario {
  if (design.startsWith(LIBRARY_PREFIX)) return { ...withLibrary(s, design.slice(LIBRARY_PREFIX.length), "--designs"), name: s.name };
  return s.design === design ? s : { ...s, design, designOptions: {} };
}

/** Why a cell was not run, in the user's terms: what in the scenario the design lacks. */
export function skipReason(design: string, err: InputError): string {
  const proc = /unknown process "([^"]+)"/.exec(err.expected);
  if (proc) return `the scenario names ${proc[1]} (${err.field}), a process ${design} does not have`;
  if (design.startsWith(LIBRARY_PREFIX) && err.field === "--designs") return `${design} cannot run it: expected ${err.expected}`;
  return `the scenario does not fit ${design}: ${err.field}: ${err.expected}`;
}

/** Compare columns that are real libraries: `library:redlock-v4`. */
export const LIBRARY_PREFIX = "library:";

export async function runCompare(o: CompareOptions): Promise<CompareResult> {
  const cells: CompareCell[] = [];
  const skipped: CompareResult["skipped"] = [];
  const summaries: SweepSummary[] = [];
  for (const base of o.scenarios) {
    for (const design of o.designs) {
      let s: Scenario;
      const cellDir = join(o.outDir, "cells", design, base.name);
      try {
        // A library column applies only to Redis scenarios; one run tells whether another
        // design's scenario fits (process names, fencing).
        s = scenarioOnDesign(base, design);
        if (s !== base) runSeed(s, o.range.from);
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        skipped.push({ design, scenario: base.name, reason: skipReason(design, err) });
        continue;
      }
      if (s !== base) {
        // A cross-design cell replays from its own scenario file (same name: runs are seeded by name and seed).
        const file = join(cellDir, `${base.name}.json`);
        s = { ...s, file };
        writeJsonAtomic(file, scenarioToJson(s));
      }
      const { summary } = await runSweep(s, {
        range: o.range,
        workers: o.workers,
        limit: o.limit,
        outDir: cellDir,
        reportsMax: 1,
        progress: o.progress,
        label: `compare ${design} × ${base.name}`,
      });
      // The column's name, so a library cell reads library:<adapter>, not "library".
      summary.scenario.design = design;
      writeJsonAtomic(join(cellDir, "summary.json"), summary);
      summaries.push(summary);
      cells.push(cellOf(summary, design, base.name, o.outDir));
    }
  }
  const matrix: CompareMatrix = {
    designs: o.designs,
    scenarios: o.scenarios.map((s) => s.name),
    seeds: { from: o.range.from, to: o.range.to },
    cells,
    skipped,
  };
  return { matrix, skipped, summaries };
}

function cellOf(s: SweepSummary, design: string, scenario: string, outDir: string): CompareCell {
  const byChecker: Record<string, number> = {};
  for (const [name, r] of Object.entries(s.checkers)) byChecker[name] = r.violations;
  const outcome = Object.entries(s.outcomes).sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))[0]?.[0];
  const report = s.execution.reports[0];
  return {
    design,
    scenario,
    runs: s.runs,
    violations: s.safety.violations,
    violationRate: s.safety.rate,
    ci95: s.safety.ci95,
    byChecker,
    ...(s.failingSeeds.first[0] !== undefined ? { failingSeed: s.failingSeeds.first[0] } : {}),
    ...(report ? { failingReport: relative(outDir, join(report.dir, "report.html")) } : {}),
    ...(outcome ? { outcome } : {}),
    ...(s.availability ? { availability: s.availability } : {}),
  };
}
