/**
 * Sweep throughput across cores, as a user gets it: whole fresh `lockstep sweep` processes
 * (start-up, thread start, the seeds, summary.json) of one scenario with --workers 1 and
 * --workers 2, alternated in one run so machine load falls on both alike; medians of each.
 * The wall-time ratio is the parallel speed-up, and on a loaded machine it cannot be trusted
 * (the second worker competes with other processes), so each process's CPU time (user + sys,
 * all its threads; bench/cpu-usage-hook.ts) is printed too: CPU ms per seed at 1 and 2
 * workers shows what the second worker costs whatever the load. A 1-seed sweep per round
 * gives the fixed cost (start-up, loading), so the per-seed figures are also given without
 * it; the 1-seed sweep is also run from dist/cli/main.js, without the start-up bundle
 * (bin/load-bundle.js), for what the bundle saves. Reports of failing seeds are left out
 * (--reports 0): the same work at any worker count. Nothing passes or fails.
 *
 * The machine's own ceiling is measured beside the pool, in the same rounds: two separate
 * 1-worker sweep processes started together, each with half the seeds. Nothing is shared
 * between them but the machine (cores, caches, memory bandwidth, each one's V8 helper threads
 * competing for the other's core), so how much faster that pair finishes than one process
 * with all the seeds is the most any pool of 2 workers could give here; the pool's own
 * figure is printed as a fraction of it, from the medians and from each kind's fastest round
 * (on a machine shared with other work, the round it disturbed least). Sizes: 400 seeds, then 4000 (what users sweep,
 * where start-up matters less), unless a seed count is given.
 *
 * Run: npm run bench (all benches) or node dist/bench/sweep.js [seeds] [scenario] after npm run build
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../sim/paths.js";
import { reportTarget } from "./targets.js";

export interface SweepRow {
  workers: number;
  seeds: number;
  wallMs: number;
  seedsPerS: number;
  /** Median CPU time (user + sys) of the whole process, ms. */
  cpuMs: number;
}

const ROUNDS = 5;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Measured {
  wallMs: number;
  cpuMs: number;
}

/** How to start one `lockstep sweep` process, and the file where it reports its own CPU time. */
function sweepInvocation(root: string, dir: string, scenario: string, seeds: string, workers: number, tag: string, entry: string) {
  const cpuFile = join(dir, `cpu-${tag}.json`);
  const hook = pathToFileURL(join(root, "dist", "bench", "cpu-usage-hook.js")).href;
  const args = ["--import", hook, entry, "sweep", scenario, "--seeds", seeds, "--workers", String(workers), "--reports", "0", "--out", join(dir, tag)];
  const options = { cwd: root, stdio: ["ignore", "ignore", "pipe"] as ["ignore", "ignore", "pipe"], env: { ...process.env, LOCKSTEP_BENCH_CPU_FILE: cpuFile } };
  return { args, options, cpuFile, what: `sweep ${scenario} --seeds ${seeds} --workers ${workers}` };
}

/** A finished sweep process's figures, or the failure it was. */
function measuredOf(run: { cpuFile: string; what: string }, status: number | null, stderr: string, wallMs: number): Measured {
  // 3 is an unsafe scenario's answer, 4 and 5 the others a sweep gives; 1, 2 or 7 mean the bench measured a failure.
  if (![0, 3, 4, 5].includes(status ?? -1)) throw new Error(`bench: ${run.what} exited ${status}: ${stderr.slice(-300)}`);
  const cpu = JSON.parse(readFileSync(run.cpuFile, "utf8")) as { userUs: number; systemUs: number };
  return { wallMs, cpuMs: (cpu.userUs + cpu.systemUs) / 1000 };
}

/**
 * One fresh `lockstep sweep` process: its wall time, seen from here, and its CPU time, reported by itself.
 * `entry`: bin/lockstep.js (the start-up bundle) unless given (unbundledEntry()).
 */
function sweepProcess(
  root: string,
  dir: string,
  scenario: string,
  seeds: number,
  workers: number,
  tag: string,
  entry = join(root, "bin", "lockstep.js"),
): Measured {
  const run = sweepInvocation(root, dir, scenario, `1..${seeds}`, workers, tag, entry);
  const start = performance.now();
  const r = spawnSync(process.execPath, run.args, { ...run.options, encoding: "utf8" });
  return measuredOf(run, r.status, r.stderr, performance.now() - start);
}

/** `sweepProcess` of one worker without waiting, on a range of seeds: so that two can run side by side. */
function sweepProcessAsync(root: string, dir: string, scenario: string, seeds: string, tag: string): Promise<Measured> {
  const run = sweepInvocation(root, dir, scenario, seeds, 1, tag, join(root, "bin", "lockstep.js"));
  const start = performance.now();
  const child = spawn(process.execPath, run.args, run.options);
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => {
      try {
        resolve(measuredOf(run, status, stderr, performance.now() - start));
      } catch (e) {
        reject(e);
      }
    });
  });
}

/**
 * The machine's ceiling for 2 workers: two 1-worker sweep processes started together, each
 * with half of 1..seeds; wall time until both are done, CPU time of both.
 */
async function pairOfProcesses(root: string, dir: string, scenario: string, seeds: number, tag: string): Promise<Measured> {
  const half = Math.floor(seeds / 2);
  const start = performance.now();
  const [a, b] = await Promise.all([
    sweepProcessAsync(root, dir, scenario, `1..${Math.max(1, half)}`, `${tag}-a`),
    sweepProcessAsync(root, dir, scenario, `${half + 1}..${seeds}`, `${tag}-b`),
  ]);
  return { wallMs: performance.now() - start, cpuMs: a.cpuMs + b.cpuMs };
}

/** A file that runs dist/cli/main.js as bin/load-bundle.js does without a bundle: the sweep's start-up before the bundle. */
function unbundledEntry(root: string, dir: string): string {
  const file = join(dir, "unbundled.mjs");
  const mainUrl = pathToFileURL(join(root, "dist", "cli", "main.js")).href;
  writeFileSync(file, `const { main } = await import(${JSON.stringify(mainUrl)});\nprocess.exitCode = await main(process.argv.slice(2));\n`);
  return file;
}

/** Sizes measured when no seed count is given: a small sweep, where start-up weighs, and a larger one. */
const SIZES = [400, 4000];
/** Rounds of the larger sizes: each round is three sweeps of several seconds. */
const ROUNDS_LARGE = 3;
const LARGE_SEEDS = 2000;

export async function main(seeds?: number, scenario = "naive-gc-pause"): Promise<SweepRow[]> {
  const root = packageRoot();
  // A `tsc` after the build leaves the bundle stale: every "bundled" figure would be the unbundled one.
  const loader = createRequire(import.meta.url)(join(root, "bin", "load-bundle.js")) as { routeOf(argv: string[]): string };
  const route = loader.routeOf(["sweep", scenario]);
  if (route !== "sweep-bundle") console.log(`bench/sweep: the start-up bundle is missing or stale (route ${route}); run \`npm run build\` to measure it`);
  const dir = mkdtempSync(join(tmpdir(), "lockstep-bench-sweep-"));
  const rows: SweepRow[] = [];
  try {
    const fixed = measureFixed(root, dir, scenario);
    for (const n of seeds !== undefined ? [seeds] : SIZES) rows.push(...(await measureSize(root, dir, scenario, n, fixed)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

interface Fixed {
  wallMs: number;
  cpuMs: number;
}

/** The 1-seed sweep (start-up and loading), with and without the start-up bundle. */
function measureFixed(root: string, dir: string, scenario: string): Fixed {
  const bundled: Measured[] = [];
  const unbundledRuns: Measured[] = [];
  const unbundled = unbundledEntry(root, dir);
  for (let round = 0; round < ROUNDS; round++) {
    bundled.push(sweepProcess(root, dir, scenario, 1, 1, `fixed-r${round}`));
    unbundledRuns.push(sweepProcess(root, dir, scenario, 1, 1, `fixed-unbundled-r${round}`, unbundled));
  }
  const fixed = { wallMs: median(bundled.map((m) => m.wallMs)), cpuMs: median(bundled.map((m) => m.cpuMs)) };
  const unbundledWallMs = median(unbundledRuns.map((m) => m.wallMs));
  const unbundledCpuMs = median(unbundledRuns.map((m) => m.cpuMs));
  console.log(
    `== sweep start-up: 1-seed sweep of ${scenario}, 1 worker, median of ${ROUNDS}: ${Math.round(fixed.wallMs)} ms wall, ${Math.round(fixed.cpuMs)} ms cpu; ` +
      `unbundled (dist/cli/main.js, no start-up bundle): ${Math.round(unbundledWallMs)} ms wall, ${Math.round(unbundledCpuMs)} ms cpu (bundled / unbundled cpu ${(fixed.cpuMs / unbundledCpuMs).toFixed(2)}x) ==`,
  );
  return fixed;
}

/** `rounds` rounds of each kind (1 worker, the pool's 2, two separate 1-worker processes), rotated. */
async function measureRounds(root: string, dir: string, scenario: string, seeds: number, rounds: number): Promise<Record<string, Measured[]>> {
  const runs: Record<string, Measured[]> = { w1: [], w2: [], pair: [] };
  const kinds = ["w1", "w2", "pair"] as const;
  for (let round = 0; round < rounds; round++) {
    // Rotate which goes first, so that none always follows another.
    for (let k = 0; k < kinds.length; k++) {
      const kind = kinds[(k + round) % kinds.length]!;
      const tag = `${kind}-${seeds}-r${round}`;
      runs[kind]!.push(
        kind === "pair" ? await pairOfProcesses(root, dir, scenario, seeds, tag) : sweepProcess(root, dir, scenario, seeds, kind === "w1" ? 1 : 2, tag),
      );
    }
  }
  return runs;
}

async function measureSize(root: string, dir: string, scenario: string, seeds: number, fixed: Fixed): Promise<SweepRow[]> {
  const rounds = seeds >= LARGE_SEEDS ? ROUNDS_LARGE : ROUNDS;
  const loadBefore = loadavg()[0]!;
  const runs = await measureRounds(root, dir, scenario, seeds, rounds);
  const loadAfter = loadavg()[0]!;
  const row = (kind: string, workers: number): SweepRow => {
    const wallMs = Math.round(median(runs[kind]!.map((m) => m.wallMs)));
    return { workers, seeds, wallMs, seedsPerS: Math.round((seeds * 1000) / wallMs), cpuMs: Math.round(median(runs[kind]!.map((m) => m.cpuMs))) };
  };
  const rows = [row("w1", 1), row("w2", 2)];
  const pair = row("pair", 2);
  console.log(
    `== sweep: ${scenario}, ${seeds} seeds, fresh \`lockstep sweep\` processes, median of ${rounds} rotated; ${cpus().length} cores, load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after ==`,
  );
  console.log("workers                         seeds   wall ms  seeds/s   cpu ms  cpu ms/seed  (cpu - 1-seed sweep)/seed");
  const line = (label: string, r: SweepRow, fixedCount: number): void => {
    const perSeed = (r.cpuMs / seeds).toFixed(2);
    const marginal = ((r.cpuMs - fixedCount * fixed.cpuMs) / Math.max(1, seeds - fixedCount)).toFixed(2);
    console.log(
      `${label.padEnd(30)} ${String(r.seeds).padStart(6)} ${String(r.wallMs).padStart(9)} ${String(r.seedsPerS).padStart(8)} ${String(r.cpuMs).padStart(8)} ${perSeed.padStart(12)} ${marginal.padStart(26)}`,
    );
  };
  line("1 (one process)", rows[0]!, 1);
  line("2 (one process, the pool)", rows[1]!, 1);
  line("2 separate 1-worker processes", pair, 2);
  // Amdahl: the 1-seed sweep's time is paid once whatever the worker count; only the rest can halve.
  const boundX = rows[0]!.wallMs / (fixed.wallMs + Math.max(0, rows[0]!.wallMs - fixed.wallMs) / 2);
  const poolX = rows[1]!.seedsPerS / rows[0]!.seedsPerS;
  const ceilingX = pair.seedsPerS / rows[0]!.seedsPerS;
  const load = Math.max(loadBefore, loadAfter);
  reportTarget(
    `, sweep ${seeds} seeds: speed-up over 1 worker: the pool's 2 workers ${poolX.toFixed(2)}x wall (target >= 1.8x); this machine's ceiling, 2 separate processes side by side, ${ceilingX.toFixed(2)}x: ` +
      `the pool gets ${Math.round((100 * poolX) / ceilingX)}% of what the machine allows; with start-up serial and the rest halved exactly it would be ${boundX.toFixed(2)}x`,
  );
  console.log(
    `cpu 2 workers / 1 worker: ${(rows[1]!.cpuMs / rows[0]!.cpuMs).toFixed(2)}x, 2 processes / 1: ${(pair.cpuMs / rows[0]!.cpuMs).toFixed(2)}x (work the second worker adds: its own start-up, its isolate's compiling, slower memory)` +
      (load > 0.5
        ? `; other work on the machine (load ${load.toFixed(2)}) competes with the second worker: the wall figures are unreliable, the cpu ones much less so`
        : ""),
  );
  // Whatever the scheduling, 2 cores finish no sooner than half the CPU time the work takes: a
  // 1-worker sweep that keeps more than one core busy (V8 compiling and collecting on helper
  // threads) leaves less than 2x to gain, and the 2-worker sweep's own CPU bounds it further.
  const coresBusy1 = rows[0]!.cpuMs / rows[0]!.wallMs;
  console.log(
    `bound from cpu time: a 1-worker sweep keeps ${coresBusy1.toFixed(2)} cores busy, so 2 cores give at most ${(2 / coresBusy1).toFixed(2)}x even if a second worker cost nothing; ` +
      `with the cpu the pool's 2 workers took, at most ${((2 * rows[0]!.wallMs) / rows[1]!.cpuMs).toFixed(2)}x`,
  );
  // On a shared machine other work comes and goes: each kind's fastest round is the one it disturbed least.
  const bestMs = (kind: string): number => Math.min(...runs[kind]!.map((m) => m.wallMs));
  const [best1, best2, bestPair] = [bestMs("w1"), bestMs("w2"), bestMs("pair")];
  console.log(
    `fastest of ${rounds} rounds (the least disturbed): 1 worker ${Math.round(best1)} ms, the pool's 2 ${Math.round(best2)} ms (${(best1 / best2).toFixed(2)}x), ` +
      `2 separate processes ${Math.round(bestPair)} ms (${(best1 / bestPair).toFixed(2)}x): the pool gets ${Math.round((100 * bestPair) / best2)}% of the ceiling`,
  );
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [seedsArg, scenarioArg] = process.argv.slice(2);
  if (seedsArg !== undefined && !/^[1-9]\d{0,6}$/.test(seedsArg)) {
    console.error(`bench/sweep: the first argument is the seed count; expected a whole number from 1, got "${seedsArg}"`);
    process.exit(2);
  }
  main(seedsArg ? Number(seedsArg) : undefined, scenarioArg).catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
