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
 * Run: npm run bench (all benches) or node dist/bench/sweep.js [seeds] [scenario] after npm run build
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../sim/paths.js";

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

/**
 * One fresh `lockstep sweep` process: its wall time, seen from here, and its CPU time, reported by itself.
 * `entry`: bin/lockstep.js (the start-up bundle) unless given (unbundledEntry()).
 */
function sweepProcess(root: string, dir: string, scenario: string, seeds: number, workers: number, tag: string, entry = join(root, "bin", "lockstep.js")): Measured {
  const cpuFile = join(dir, `cpu-${tag}.json`);
  const hook = pathToFileURL(join(root, "dist", "bench", "cpu-usage-hook.js")).href;
  const args = ["--import", hook, entry, "sweep", scenario, "--seeds", `1..${seeds}`, "--workers", String(workers), "--reports", "0", "--out", join(dir, tag)];
  const start = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", env: { ...process.env, LOCKSTEP_BENCH_CPU_FILE: cpuFile } });
  const wallMs = performance.now() - start;
  // 3 is an unsafe scenario's answer, 4 and 5 the others a sweep gives; 1, 2 or 7 mean the bench measured a failure.
  if (![0, 3, 4, 5].includes(r.status ?? -1)) throw new Error(`bench: sweep ${scenario} --workers ${workers} exited ${r.status}: ${r.stderr.slice(-300)}`);
  const cpu = JSON.parse(readFileSync(cpuFile, "utf8")) as { userUs: number; systemUs: number };
  return { wallMs, cpuMs: (cpu.userUs + cpu.systemUs) / 1000 };
}

/** A file that runs dist/cli/main.js as bin/load-bundle.js does without a bundle: the sweep's start-up before the bundle. */
function unbundledEntry(root: string, dir: string): string {
  const file = join(dir, "unbundled.mjs");
  const mainUrl = pathToFileURL(join(root, "dist", "cli", "main.js")).href;
  writeFileSync(file, `const { main } = await import(${JSON.stringify(mainUrl)});\nprocess.exitCode = await main(process.argv.slice(2));\n`);
  return file;
}

export async function main(seeds = 400, scenario = "naive-gc-pause"): Promise<SweepRow[]> {
  const root = packageRoot();
  // A `tsc` after the build leaves the bundle stale: every "bundled" figure would be the unbundled one.
  const loader = createRequire(import.meta.url)(join(root, "bin", "load-bundle.js")) as { routeOf(argv: string[]): string };
  const route = loader.routeOf(["sweep", scenario]);
  if (route !== "sweep-bundle") console.log(`bench/sweep: the start-up bundle is missing or stale (route ${route}); run \`npm run build\` to measure it`);
  const dir = mkdtempSync(join(tmpdir(), "lockstep-bench-sweep-"));
  const loadBefore = loadavg()[0]!;
  const runs: Record<number, Measured[]> = { 1: [], 2: [] };
  const fixed: Measured[] = [];
  const fixedUnbundled: Measured[] = [];
  try {
    const unbundled = unbundledEntry(root, dir);
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which worker count goes first, so neither always follows the other.
      for (const workers of round % 2 === 0 ? [1, 2] : [2, 1]) runs[workers]!.push(sweepProcess(root, dir, scenario, seeds, workers, `w${workers}-r${round}`));
      fixed.push(sweepProcess(root, dir, scenario, 1, 1, `fixed-r${round}`));
      fixedUnbundled.push(sweepProcess(root, dir, scenario, 1, 1, `fixed-unbundled-r${round}`, unbundled));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const loadAfter = loadavg()[0]!;
  const rows = [1, 2].map((workers) => {
    const wallMs = Math.round(median(runs[workers]!.map((m) => m.wallMs)));
    return { workers, seeds, wallMs, seedsPerS: Math.round((seeds * 1000) / wallMs), cpuMs: Math.round(median(runs[workers]!.map((m) => m.cpuMs))) };
  });
  const fixedCpuMs = median(fixed.map((m) => m.cpuMs));
  const fixedWallMs = median(fixed.map((m) => m.wallMs));
  console.log(
    `== sweep: ${scenario}, ${seeds} seeds, fresh \`lockstep sweep\` processes, median of ${ROUNDS} alternated; ${cpus().length} cores, load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after ==`,
  );
  console.log("workers  seeds   wall ms  seeds/s   cpu ms  cpu ms/seed  (cpu - 1-seed sweep)/seed");
  for (const r of rows) {
    const perSeed = (r.cpuMs / seeds).toFixed(2);
    const marginal = ((r.cpuMs - fixedCpuMs) / Math.max(1, seeds - 1)).toFixed(2);
    console.log(`${String(r.workers).padStart(7)} ${String(r.seeds).padStart(6)} ${String(r.wallMs).padStart(9)} ${String(r.seedsPerS).padStart(8)} ${String(r.cpuMs).padStart(8)} ${perSeed.padStart(12)} ${marginal.padStart(26)}`);
  }
  // Amdahl: the 1-seed sweep's time is paid once whatever the worker count; only the rest can halve.
  const boundX = rows[0]!.wallMs / (fixedWallMs + Math.max(0, rows[0]!.wallMs - fixedWallMs) / 2);
  console.log(`1-seed sweep (start-up and loading, 1 worker): ${Math.round(fixedWallMs)} ms wall, ${Math.round(fixedCpuMs)} ms cpu; at most ${boundX.toFixed(2)}x with 2 workers if that part stays serial`);
  // The same without the start-up bundle: the 1-worker sweep is taken to cost the difference in fixed cost more.
  const unbundledWallMs = median(fixedUnbundled.map((m) => m.wallMs));
  const unbundledOneWorkerMs = rows[0]!.wallMs + unbundledWallMs - fixedWallMs;
  const unbundledBoundX = unbundledOneWorkerMs / (unbundledWallMs + Math.max(0, unbundledOneWorkerMs - unbundledWallMs) / 2);
  console.log(
    `  unbundled (dist/cli/main.js, no start-up bundle): ${Math.round(unbundledWallMs)} ms wall, ${Math.round(median(fixedUnbundled.map((m) => m.cpuMs)))} ms cpu; at most ${unbundledBoundX.toFixed(2)}x; bundled / unbundled cpu: ${(fixedCpuMs / median(fixedUnbundled.map((m) => m.cpuMs))).toFixed(2)}x`,
  );
  const load = Math.max(loadBefore, loadAfter);
  console.log(
    `speed-up 2 workers / 1 worker: ${(rows[1]!.seedsPerS / rows[0]!.seedsPerS).toFixed(2)}x wall (target >= 1.8x); cpu 2 workers / 1 worker: ${(rows[1]!.cpuMs / rows[0]!.cpuMs).toFixed(2)}x (the second worker's own cost)` +
      (load > 0.5 ? `; other work on the machine (load ${load.toFixed(2)}) competes with the second worker: the wall figure is unreliable, the cpu one much less so` : ""),
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
