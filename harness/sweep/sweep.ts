import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import type { Scenario } from "../../scenarios/schema.js";
import { designByName, DESIGNS } from "../../designs/index.js";
import { InputError } from "../../sim/errors.js";
import { lockstepVersion } from "../version.js";
import { replayCommand } from "../replay-command.js";
import { SweepCancelled, SweepPool } from "./pool.js";
import { Checkpoint, PROGRESS_FORMAT, type ProgressHeader } from "./checkpoint.js";
import { Progress, type ProgressStream } from "./progress.js";
import { isFailing, type SeedResult } from "./run-seed.js";
import { rangeSize, seedsOf, shardOf, type SeedRange, type Shard } from "./range.js";
import { scenarioDigest, summarize, type SweepSummary } from "./summary.js";
import { SweepThreadDied } from "./thread-died.js";

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
  /** Keep progress in `<outDir>/progress.jsonl`; `resume`: continue from it. */
  checkpoint?: { resume: boolean };
  /** Aborted (Ctrl-C): stop, and return what finished, `interrupted` set. */
  signal?: AbortSignal;
  /** Worker threads the caller started early (threads.ts startThreads(threadsFor(workers))); the sweep owns and stops them. */
  threads?: Worker[];
}

export interface SweepResult {
  summary: SweepSummary;
  /** One per seed of the shard, in seed order. */
  results: SeedResult[];
  shard: Shard;
  /** Stopped by `signal` before every seed ran (or before its reports were written). */
  interrupted: boolean;
  /** Seeds read back from the checkpoint rather than run now. */
  resumed: number;
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
  try {
    return await sweep(scenario, o);
  } catch (e) {
    if (e instanceof SweepThreadDied && e.seeds.length > 0) e.replay = replayCommand(scenario, e.seeds[0]!);
    throw e;
  } finally {
    // Threads the caller started stop on every path, the bad-input ones included.
    await Promise.all((o.threads ?? []).map((w) => w.terminate()));
  }
}

async function sweep(scenario: Scenario, o: SweepOptions): Promise<SweepResult> {
  precheck(scenario);
  const { index, count } = o.shard ?? { index: 1, count: 1 };
  const shard = shardOf(o.range, index, count);
  // Opened before any seed runs: an --out that cannot be written fails now, not after the work.
  const checkpoint = openCheckpoint(scenario, o, shard);
  const done = checkpoint?.done ?? [];
  const doneSeeds = new Set(done.map((r) => r.seed));
  const seeds = seedsOf(shard).filter((s) => !doneSeeds.has(s));
  const label = o.label ?? `sweep ${scenario.name}${count > 1 ? ` shard ${index}/${count}` : ""}`;
  const progress = o.progress === false ? undefined : new Progress(label, rangeSize(shard), o.progress ?? process.stderr);
  progress?.add(done.length, done.filter(isFailing).length);
  const started = Date.now();
  const pool = new SweepPool(scenario, Math.min(o.workers, Math.max(1, seeds.length)), o.threads);
  const onAbort = (): void => void pool.cancel();
  o.signal?.addEventListener("abort", onAbort);
  let interrupted: boolean;
  try {
    if (o.signal?.aborted) await pool.cancel();
    const fresh = await pool.runSeeds(seeds, (chunk) => {
      checkpoint?.append(chunk);
      progress?.add(chunk.length, chunk.filter(isFailing).length);
    });
    const results = [...done, ...fresh].sort((a, b) => a.seed - b.seed);
    interrupted = pool.wasCancelled;
    const failing = results.filter(isFailing).map((r) => r.seed);
    const reports =
      o.outDir && !interrupted ? failing.slice(0, o.reportsMax ?? o.limit).map((seed) => ({ seed, dir: join(o.outDir!, "failing", `seed-${seed}`) })) : [];
    if (!interrupted) interrupted = !(await writeReports(pool, reports));
    progress?.finish(`${pool.workers > 1 ? ` (${pool.workers} workers)` : " (1 worker)"}${interrupted ? ", interrupted" : ""}`);
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
      reports: interrupted ? [] : reports,
    });
    return { summary, results, shard, interrupted, resumed: done.length };
  } finally {
    o.signal?.removeEventListener("abort", onAbort);
    checkpoint?.close();
    await pool.close();
  }
}

/** The progress file of this sweep's shard (--out), started afresh or resumed; none without --out. */
function openCheckpoint(scenario: Scenario, o: SweepOptions, shard: ReturnType<typeof shardOf>): Checkpoint | undefined {
  const { index, count } = o.shard ?? { index: 1, count: 1 };
  const header: ProgressHeader = {
    format: PROGRESS_FORMAT,
    lockstep: lockstepVersion(),
    scenario: { name: scenario.name, digest: scenarioDigest(scenario) },
    seeds: { from: o.range.from, to: o.range.to },
    shard: { index, count },
  };
  return o.checkpoint && o.outDir ? (o.checkpoint.resume ? Checkpoint.resume(o.outDir, header, shard) : Checkpoint.start(o.outDir, header)) : undefined;
}

/** The failing seeds' reports; false when the sweep was cancelled part-way (their temporary files removed). */
async function writeReports(pool: SweepPool, reports: Array<{ seed: number; dir: string }>): Promise<boolean> {
  try {
    await pool.writeReports(reports);
    return true;
  } catch (e) {
    if (!(e instanceof SweepCancelled)) throw e;
    // A worker stopped mid-write leaves its temporary files: they are ours to remove.
    for (const r of reports) removeTempsIn(r.dir);
    return false;
  }
}

/** Remove the temporary files (harness/safe-write.ts names) an interrupted write left in `dir`. */
function removeTempsIn(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) if (n.endsWith(".lockstep-tmp")) rmSync(join(dir, n), { force: true });
}
