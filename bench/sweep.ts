/**
 * Sweep throughput across cores, as a user gets it: whole fresh `lockstep sweep` processes
 * (start-up, worker start, the seeds, summary.json) of naive-gc-pause with --workers 1 and
 * --workers 2, interleaved in one run so machine load falls on both alike. The ratio is the
 * parallel speed-up; the load average is printed beside it (other processes on the cores make
 * it unreliable, and the line says so). Reports of failing seeds are left out (--reports 0):
 * they are the same work at either worker count. Nothing passes or fails.
 *
 * Run: npm run bench (all benches) or node dist/bench/sweep.js after npm run build
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../sim/paths.js";

export interface SweepRow {
  workers: number;
  seeds: number;
  wallMs: number;
  seedsPerS: number;
}

const ROUNDS = 3;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function main(seeds = 400): Promise<SweepRow[]> {
  const root = packageRoot();
  const dir = mkdtempSync(join(tmpdir(), "lockstep-bench-sweep-"));
  const loadBefore = loadavg()[0]!;
  const wall: Record<number, number[]> = { 1: [], 2: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const workers of [1, 2]) {
        const args = [join(root, "bin", "lockstep.js"), "sweep", "naive-gc-pause", "--seeds", `1..${seeds}`, "--workers", String(workers), "--reports", "0", "--out", join(dir, `w${workers}-r${round}`)];
        const start = performance.now();
        const r = spawnSync(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
        wall[workers]!.push(performance.now() - start);
        // naive-gc-pause is unsafe on its seeds: exit 3 is the sweep's answer; anything else, the bench measured a failure.
        if (r.status !== 3 && r.status !== 0) throw new Error(`bench: sweep --workers ${workers} exited ${r.status}: ${r.stderr.slice(-300)}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const loadAfter = loadavg()[0]!;
  const rows = [1, 2].map((workers) => {
    const wallMs = Math.round(median(wall[workers]!));
    return { workers, seeds, wallMs, seedsPerS: Math.round((seeds * 1000) / wallMs) };
  });
  const cores = cpus().length;
  console.log(`== sweep: naive-gc-pause, ${seeds} seeds, fresh \`lockstep sweep\` processes, median of ${ROUNDS} interleaved; ${cores} cores, load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after ==`);
  console.log("workers  seeds   wall ms  seeds/s");
  for (const r of rows) console.log(`${String(r.workers).padStart(7)} ${String(r.seeds).padStart(6)} ${String(r.wallMs).padStart(9)} ${String(r.seedsPerS).padStart(8)}`);
  const busy = Math.max(loadBefore, loadAfter) > 0.5;
  console.log(
    `speed-up 2 workers / 1 worker: ${(rows[1]!.seedsPerS / rows[0]!.seedsPerS).toFixed(2)}x (target >= 1.8x)` +
      (busy ? `; other work on the machine (load ${Math.max(loadBefore, loadAfter).toFixed(2)}) competes with the second worker: the figure is unreliable` : ""),
  );
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
