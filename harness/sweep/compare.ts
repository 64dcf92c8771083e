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
import { parseScenario } from "../../scenarios/schema.js";
import type { Attack, LockUnderTest } from "../../attacks/index.js";
import { BUILTIN_ADAPTERS, adapterPath } from "../../designs/library/adapter.js";
import { library } from "../../designs/library/design.js";
import { adapterSlug } from "../adapter-slug.js";

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
  /** The rows: scenarios, each run on every design. */
  scenarios: Scenario[];
  /** Or attacks (attacks/), each compiled for every design; refused cells are skipped with the reason. */
  attacks?: readonly Attack[];
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

/** The lock a column stands for, as an attack sees it: a design, or a built-in library on its default node count. */
export function lockOfColumn(design: string): LockUnderTest {
  if (!design.startsWith(LIBRARY_PREFIX)) return { design, label: design };
  const adapter = design.slice(LIBRARY_PREFIX.length);
  const nodes = BUILTIN_ADAPTERS[adapter]?.nodesDefault ?? 1;
  return {
    design: library.name,
    designOptions: { adapter: adapterPath(adapter, "<arg>", BUILTIN_ADAPTERS[adapter] ? "--designs" : "--lock"), nodes },
    label: adapter,
  };
}

/** One row of the matrix: its name, and the scenario it runs on a column (or why it cannot). */
interface CompareRow {
  name: string;
  on(design: string): Scenario | { skip: string };
}

function scenarioRow(base: Scenario, from: number): CompareRow {
  return {
    name: base.name,
    on(design) {
      try {
        // A library column applies only to Redis scenarios; one run tells whether another
        // design's scenario fits (process names, fencing).
        const s = scenarioOnDesign(base, design);
        if (s !== base) runSeed(s, from);
        return s;
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        return { skip: skipReason(design, err) };
      }
    },
  };
}

/** An attack's row: the attack compiled for each column's lock (docs/attacks.md). */
function attackRow(a: Attack): CompareRow {
  return {
    name: a.name,
    on(design) {
      const c = a.compile(lockOfColumn(design));
      if (!c.ok) return { skip: `refused: ${c.refusal}` };
      return parseScenario(JSON.parse(JSON.stringify(c.scenario)), `<attack ${a.name}>`);
    },
  };
}

/** A column's folder under cells/: a library column given as a path becomes `library-<slug>`, never a nested path. */
export function columnDir(design: string): string {
  if (!design.startsWith(LIBRARY_PREFIX)) return design;
  const adapter = design.slice(LIBRARY_PREFIX.length);
  return BUILTIN_ADAPTERS[adapter] ? `library-${adapter}` : `library-${adapterSlug(adapter)}`;
}

/** Compare columns that are real libraries: `library:redlock-v4`. */
export const LIBRARY_PREFIX = "library:";

export async function runCompare(o: CompareOptions): Promise<CompareResult> {
  const cells: CompareCell[] = [];
  const skipped: CompareResult["skipped"] = [];
  const summaries: SweepSummary[] = [];
  const rows = o.attacks ? o.attacks.map(attackRow) : o.scenarios.map((s) => scenarioRow(s, o.range.from));
  for (const row of rows) {
    for (const design of o.designs) {
      const cellDir = join(o.outDir, "cells", columnDir(design), row.name);
      let s = row.on(design);
      if ("skip" in s) {
        skipped.push({ design, scenario: row.name, reason: s.skip });
        continue;
      }
      if (o.attacks || !o.scenarios.includes(s)) {
        // A cross-design or attack cell replays from its own scenario file (same name: runs are seeded by name and seed).
        const file = join(cellDir, `${s.name}.json`);
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
        label: `compare ${design} × ${row.name}`,
      });
      // The column's name, so a library cell reads library:<adapter>, not "library".
      summary.scenario.design = design;
      writeJsonAtomic(join(cellDir, "summary.json"), summary);
      summaries.push(summary);
      cells.push(cellOf(summary, design, row.name, o.outDir));
    }
  }
  const matrix: CompareMatrix = {
    designs: o.designs,
    scenarios: rows.map((r) => r.name),
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
    ...(s.liveness.violations > 0 ? { livenessLosses: s.liveness.violations } : {}),
    ...(s.failingSeeds.first[0] !== undefined ? { failingSeed: s.failingSeeds.first[0] } : {}),
    ...(report ? { failingReport: relative(outDir, join(report.dir, "report.html")) } : {}),
    ...(outcome ? { outcome } : {}),
    ...(s.availability ? { availability: s.availability } : {}),
  };
}
