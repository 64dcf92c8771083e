/**
 * Bytes allocated per event and per seed : a sweep is allocation-bound (two
 * sweep workers side by side slow each other through the memory system, where pure CPU
 * loops do not), so the bytes a seed allocates are the figure to cut. They are counted
 * by V8's sampling heap profiler (every object allocated, collected or not, sampled
 * every ~512 bytes): a byte count, not a time, so the machine's load does not move it.
 * Each row also gives the CPU time per seed (taken with the profiler off), under
 * whatever load the machine has.
 *
 * A seed is what a sweep runs: runSeed, the run and its checkers.
 *
 * Run: npm run bench (all benches), or node dist/bench/allocation.js [--dist DIR] to
 * measure another build (say /work/main/dist) with the same scenarios and seeds.
 */
import { Session } from "node:inspector/promises";
import { setFlagsFromString } from "node:v8";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import type { Scenario } from "../scenarios/schema.js";
import type { SeedResult } from "../harness/sweep/run-seed.js";

/** A Redis SET NX design, a Redlock design, a Raft/ZooKeeper design. */
export const ALLOCATION_SCENARIOS = ["naive-gc-pause", "redlock-clock-jump", "raft-zk-baseline"] as const;

const WARMUP_SEEDS = 30;
/** Seeds per row, from seed 1: the same work on every build measured. */
const SEEDS = 150;
const SAMPLING_INTERVAL_BYTES = 512;

export interface AllocationRow {
  scenario: string;
  seeds: number;
  eventsPerSeed: number;
  bytesPerSeed: number;
  bytesPerEvent: number;
  cpuMsPerSeed: number;
}

interface Build {
  loadScenario(name: string): Scenario;
  runSeed(s: Scenario, seed: number): SeedResult;
}

/** The build to measure: this one, or the dist directory given. */
async function loadBuild(distDir: string | undefined): Promise<Build> {
  const ext = distDir === undefined && import.meta.url.endsWith(".ts") ? "ts" : "js";
  const root = distDir === undefined ? new URL("../", import.meta.url) : pathToFileURL(resolve(distDir) + "/");
  const scenarios = (await import(new URL(`scenarios/index.${ext}`, root).href)) as Pick<Build, "loadScenario">;
  const seeds = (await import(new URL(`harness/sweep/run-seed.${ext}`, root).href)) as Pick<Build, "runSeed">;
  return { loadScenario: scenarios.loadScenario, runSeed: seeds.runSeed };
}

/** Total self size of a sampled allocation profile's tree (bounded: a tree, walked once). */
function profileBytes(head: { selfSize: number; children: unknown[] }): number {
  let total = 0;
  const stack = [head];
  while (stack.length > 0) {
    const n = stack.pop()!;
    total += n.selfSize;
    for (const c of n.children) stack.push(c as typeof head);
  }
  return total;
}

export async function measureAllocation(build: Build, name: string, seeds = SEEDS): Promise<AllocationRow> {
  const s = build.loadScenario(name);
  for (let i = 1; i <= WARMUP_SEEDS; i++) build.runSeed(s, i); // JIT: what is measured is optimised code
  let events = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 1; i <= seeds; i++) events += build.runSeed(s, i).eventsRun;
  const cpu = process.cpuUsage(cpu0);
  const session = new Session();
  session.connect();
  try {
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: SAMPLING_INTERVAL_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    for (let i = 1; i <= seeds; i++) build.runSeed(s, i);
    const { profile } = await session.post("HeapProfiler.stopSampling");
    const bytes = profileBytes(profile.head as unknown as { selfSize: number; children: unknown[] });
    return {
      scenario: name,
      seeds,
      eventsPerSeed: Math.round(events / seeds),
      bytesPerSeed: Math.round(bytes / seeds),
      bytesPerEvent: Math.round(bytes / events),
      cpuMsPerSeed: (cpu.user + cpu.system) / 1000 / seeds,
    };
  } finally {
    session.disconnect();
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<AllocationRow[]> {
  const at = argv.indexOf("--dist");
  const distDir = at >= 0 ? argv[at + 1] : undefined;
  // The sample points follow a fixed sequence, so a build measured twice gives close figures.
  setFlagsFromString("--sampling-heap-profiler-suppress-randomness");
  const build = await loadBuild(distDir);
  console.log(`== allocation: bytes allocated per seed and per event (runSeed, seeds 1..${SEEDS}; ${distDir ?? "this build"}) ==`);
  console.log("scenario               events/seed   KiB/seed  bytes/event  cpu ms/seed (under the machine's load)");
  const rows: AllocationRow[] = [];
  for (const name of ALLOCATION_SCENARIOS) {
    const r = await measureAllocation(build, name);
    rows.push(r);
    console.log(
      `${r.scenario.padEnd(22)} ${String(r.eventsPerSeed).padStart(11)} ${(r.bytesPerSeed / 1024).toFixed(0).padStart(10)} ${String(r.bytesPerEvent).padStart(12)} ${r.cpuMsPerSeed.toFixed(2).padStart(12)}`,
    );
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
