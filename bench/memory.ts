/**
 * Memory of a run: bytes per history event retained once a run ends (heap in use after a
 * full GC, the run's output held, over the heap before it), for baseline scenarios and for
 * a 10-minute, 10-client naive-baseline run. The history is held in memory whole (the CLI
 * writes history.jsonl after the run), so the last row grows with the run's length; the
 * figure shows by how much. Nothing passes or fails.
 *
 * Run: npm run build && node --expose-gc dist/bench/memory.js (npm run bench passes no
 * --expose-gc: then the figures are heap deltas without a forced GC, and say so).
 */
import { pathToFileURL } from "node:url";
import { loadScenario } from "../scenarios/index.js";
import type { Scenario } from "../scenarios/schema.js";
import { runScenario } from "../sim/runner.js";

const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = (): number => {
  gc?.();
  return process.memoryUsage().heapUsed / (1024 * 1024);
};

function retained(name: string, s: Scenario): string {
  const before = heapMb();
  const t0 = performance.now();
  const run = runScenario(s, 1);
  const wallS = (performance.now() - t0) / 1000;
  const mb = heapMb() - before;
  const events = run.history.length;
  const row = `${name.padEnd(34)} ${String(events).padStart(9)} ${mb.toFixed(1).padStart(9)} ${((mb * 1024 * 1024) / Math.max(1, events)).toFixed(0).padStart(10)} ${wallS.toFixed(1).padStart(7)}`;
  void run.history.length; // held until here, so the GC above could not take it
  return row;
}

export async function main(): Promise<void> {
  console.log(`== memory: heap retained by a run's output (history + meta), seed 1${gc ? "" : " (no --expose-gc: deltas without a forced GC, noisy)"} ==`);
  console.log("run                                   events  heap MB  bytes/ev  wall s");
  // Runs of a few hundred events are below the heap's noise; naive-baseline has ~20k.
  console.log(retained("naive-baseline (30 s, 3 clients)", loadScenario("naive-baseline")));
  const base = loadScenario("naive-baseline");
  const clients = Array.from({ length: 10 }, (_, i) => ({ id: `c${i + 1}`, startMs: 0 }));
  const long: Scenario = { ...base, name: "naive-baseline-10min-10c", durationMs: 600_000, clients };
  console.log(retained("naive-baseline, 10 min, 10 clients", long));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
