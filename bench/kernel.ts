/**
 * The kernel's speed against the cheapest possible event loop: simulated seconds per
 * wall second and events per second for naive-gc-pause and naive-baseline, beside a
 * bare binary-heap push/pop loop measured in the same run. The ratio (kernel events/s
 * over heap ops/s) is the figure to watch; absolute numbers depend on the machine.
 *
 * Run: npm run bench (all benches) or, from sources, npx tsx bench/kernel.ts
 */
import { pathToFileURL } from "node:url";
import { loadScenario } from "../scenarios/index.js";
import { runScenario } from "../sim/runner.js";
import type { Scenario } from "../scenarios/schema.js";

export interface KernelRow {
  scenario: string;
  runs: number;
  wallMs: number;
  events: number;
  eventsPerS: number;
  simSPerWallS: number;
}

/** A bare (time, seq) min-heap on parallel arrays, with a deterministic LCG for times. */
export function bareHeapOpsPerS(ops: number, queueLength = 64): number {
  const time = new Float64Array(queueLength + 1);
  const seq = new Float64Array(queueLength + 1);
  let n = 0;
  let nextSeq = 0;
  let rnd = 12345;
  const rand = () => ((rnd = (rnd * 1103515245 + 12345) & 0x7fffffff), rnd / 0x7fffffff);
  const less = (i: number, j: number) => time[i]! < time[j]! || (time[i] === time[j] && seq[i]! < seq[j]!);
  const swap = (i: number, j: number) => {
    const t = time[i]!, s = seq[i]!;
    time[i] = time[j]!; seq[i] = seq[j]!;
    time[j] = t; seq[j] = s;
  };
  const push = (t: number) => {
    let i = n++;
    time[i] = t;
    seq[i] = nextSeq++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(i, p)) break;
      swap(i, p);
      i = p;
    }
  };
  const pop = (): number => {
    const top = time[0]!;
    n--;
    time[0] = time[n]!;
    seq[0] = seq[n]!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && less(r, l) ? r : l;
      if (!less(m, i)) break;
      swap(m, i);
      i = m;
    }
    return top;
  };
  for (let i = 0; i < queueLength; i++) push(rand() * 1000);
  const start = performance.now();
  let sink = 0;
  for (let i = 0; i < ops; i++) {
    const t = pop();
    sink += t;
    push(t + rand() * 1000);
  }
  const ms = performance.now() - start;
  if (sink < 0) console.log(sink); // keep the loop observable
  return (ops * 1000) / Math.max(ms, 0.001);
}

/** Run a scenario over seeds 1, 2, ... for at least `wallMsMin` and `runsMin` runs, after one warm-up run (JIT). */
export function measureScenario(s: Scenario, wallMsMin: number, runsMin: number): Omit<KernelRow, "scenario"> {
  runScenario(s, 1); // warm-up (JIT)
  let runs = 0;
  let events = 0;
  let simUs = 0;
  const start = performance.now();
  while (performance.now() - start < wallMsMin || runs < runsMin) {
    const r = runScenario(s, ++runs);
    events += r.meta.eventsRun;
    simUs += r.meta.endUs;
  }
  const wallMs = performance.now() - start;
  return { runs, wallMs: Math.round(wallMs), events, eventsPerS: Math.round((events * 1000) / wallMs), simSPerWallS: Math.round(simUs / 1000 / wallMs) };
}

export function kernelRow(name: string, wallMsMin = 1500): KernelRow {
  return { scenario: name, ...measureScenario(loadScenario(name), wallMsMin, 3) };
}

export async function main(): Promise<{ rows: KernelRow[]; heapOpsPerS: number }> {
  console.log("== kernel: simulator events/s against a bare binary-heap loop (same process, same run) ==");
  const rows = ["naive-gc-pause", "naive-baseline"].map((n) => kernelRow(n));
  bareHeapOpsPerS(200_000); // warm-up
  const heapOpsPerS = Math.round(bareHeapOpsPerS(5_000_000));
  console.log("scenario          runs   wall ms      events    events/s  sim s/wall s  kernel/heap");
  for (const r of rows) {
    console.log(
      `${r.scenario.padEnd(16)} ${String(r.runs).padStart(5)} ${String(r.wallMs).padStart(9)} ${String(r.events).padStart(11)} ${String(r.eventsPerS).padStart(11)} ${String(r.simSPerWallS).padStart(13)} ${(r.eventsPerS / heapOpsPerS).toFixed(3).padStart(12)}`,
    );
  }
  console.log(`bare heap (64 queued, pop+push): ${heapOpsPerS} ops/s`);
  return { rows, heapOpsPerS };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
