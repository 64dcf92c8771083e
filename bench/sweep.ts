/**
 * Sweep throughput: seeds per second of naive-gc-pause with 1 and with 2 workers, in
 * the same run (the ratio is the parallel speed-up, worker start-up included).
 *
 * Run: npm run bench (all benches) or npx tsx bench/sweep.ts
 */
import { pathToFileURL } from "node:url";
import { loadScenario } from "../scenarios/index.js";
import { runSweep } from "../cli/sweep/sweep.js";

export interface SweepRow {
  workers: number;
  seeds: number;
  wallMs: number;
  seedsPerS: number;
}

export async function main(seeds = 400): Promise<SweepRow[]> {
  console.log(`== sweep: seeds/s of naive-gc-pause, ${seeds} seeds, 1 and 2 workers ==`);
  const s = loadScenario("naive-gc-pause");
  await runSweep(s, { range: { from: 1, to: 20 }, workers: 1, limit: 1, progress: false }); // warm-up
  const rows: SweepRow[] = [];
  for (const workers of [1, 2]) {
    const start = performance.now();
    const r = await runSweep(s, { range: { from: 1, to: seeds }, workers, limit: 1, progress: false });
    const wallMs = performance.now() - start;
    if (r.summary.runs !== seeds) throw new Error("bench: sweep lost seeds");
    rows.push({ workers, seeds, wallMs: Math.round(wallMs), seedsPerS: Math.round((seeds * 1000) / wallMs) });
  }
  console.log("workers  seeds   wall ms  seeds/s");
  for (const r of rows) console.log(`${String(r.workers).padStart(7)} ${String(r.seeds).padStart(6)} ${String(r.wallMs).padStart(9)} ${String(r.seedsPerS).padStart(8)}`);
  console.log(`speed-up 2 workers / 1 worker: ${(rows[1]!.seedsPerS / rows[0]!.seedsPerS).toFixed(2)}x`);
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
