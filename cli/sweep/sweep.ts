import { join } from "node:path";
import type { Scenario } from "../../scenarios/schema.js";
import { designByName, DESIGNS } from "../../impls/index.js";
import { InputError } from "../../sim/errors.js";
import { lockstepVersion, replayCommand } from "../artifacts.js";
import { SweepPool } from "./pool.js";
import { Progress, type ProgressStream } from "./progress.js";
import { isFailing, type SeedResult } from "./run-seed.js";
import { seedsOf, shardOf, type SeedRange, type Shard } from "./range.js";
import { summarize, type SweepSummary } from "./summary.js";

export interface SweepOptions {
  range: SeedRange;
  shard?: { index: number; count: number };
  workers: number;
  /** How many failing seeds the summary lists (and at most how many reports are written). */
  limit: number;
  /** Write the first `reportsMax` failing seeds' run directories under `<outDir>/failing/seed-<N>`. */
  outDir?: string;
  reportsMax?: number;
  /** Progress bar stream (default: stderr); false for none at all. */
  progress?: ProgressStream | false;
  label?: string;
}

export interface SweepResult {
  summary: SweepSummary;
  /** One per seed of the shard, in seed order. */
  results: SeedResult[];
  shard: Shard;
}

/** Fail fast, on this thread, for what every seed would fail on. */
function precheck(s: Scenario): void {
  const design = designByName(s.design);
  if (!design) throw new InputError(s.file, "design", `unknown design "${s.design}"; expected one of: ${DESIGNS.map((d) => d.name).join(", ")}`);
  design.parseOptions(s.designOptions, s.file, "designOptions");
}

/**
 * Run a sweep (or one shard of it): every seed of the slice, on `workers` threads,
 * aggregated in seed order; then the run directories of the first failing seeds.
 */
export async function runSweep(scenario: Scenario, o: SweepOptions): Promise<SweepResult> {
  precheck(scenario);
  const { index, count } = o.shard ?? { index: 1, count: 1 };
  const shard = shardOf(o.range, index, count);
  const seeds = seedsOf(shard);
  const label = o.label ?? `sweep ${scenario.name}${count > 1 ? ` shard ${index}/${count}` : ""}`;
  const progress = o.progress === false ? undefined : new Progress(label, seeds.length, o.progress ?? process.stderr);
  const started = Date.now();
  const pool = new SweepPool(scenario, Math.min(o.workers, Math.max(1, seeds.length)));
  try {
    const results = await pool.runSeeds(seeds, (chunk) => progress?.add(chunk.length, chunk.filter(isFailing).length));
    progress?.finish(pool.workers > 1 ? ` (${pool.workers} workers)` : " (1 worker)");
    const failing = results.filter(isFailing).map((r) => r.seed);
    const reports = o.outDir
      ? failing.slice(0, o.reportsMax ?? o.limit).map((seed) => ({ seed, dir: join(o.outDir!, "failing", `seed-${seed}`) }))
      : [];
    await pool.writeReports(reports);
    const summary = summarize({
      version: lockstepVersion(),
      scenario,
      range: o.range,
      shard,
      results,
      limit: o.limit,
      replay: (seed) => replayCommand(scenario, seed),
      workers: pool.workers,
      wallMs: Date.now() - started,
      reports,
    });
    return { summary, results, shard };
  } finally {
    await pool.close();
  }
}
