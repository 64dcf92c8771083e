/**
 * Benchmark of the Raft-backed services in the simulator: Raft-ZK and etcd-lease on a
 * 5-node cluster with 10 clients taking turns on one lock (sessions or leases,
 * keepalives), beside the walking skeleton's naive-baseline (one Redis node, 3
 * clients), measured in the same run. Prints simulated seconds per wall second and
 * events per wall second for each, and bytes allocated per event; checkers are not
 * timed. The figures are reported, never judged.
 *
 * One timed round runs every seed in SEEDS (a single 30 s run is 50–100 ms, too short
 * to steer by: its figure moved by half between invocations). The median of ROUNDS
 * rounds is reported with the slowest and fastest, so a noisy run shows as a wide
 * spread. Events per run are deterministic; bytes per event come from V8's sampling
 * heap profiler over one untimed round (collected objects included), so they do not
 * depend on how busy the machine is. Rounds follow one another with no forced GC (see
 * measure), as the seeds of a sweep do.
 *
 * Run: npm run build && node --expose-gc dist/bench/raft-zk.js
 */
import { Session } from "node:inspector/promises";
import { pathToFileURL } from "node:url";
import { loadScenario } from "../scenarios/index.js";
import type { Scenario } from "../scenarios/schema.js";
import { runScenario } from "../harness/runner.js";
import { reportTarget } from "./targets.js";
import { minorFaults, pageFaultCost } from "./page-faults.js";

export interface RaftZkBenchRow {
  name: string;
  servers: number;
  clients: number;
  /** Simulated seconds of one round (every seed). */
  simS: number;
  /** Median wall time of a round, and the fastest and slowest. */
  wallMs: number;
  wallMsMin: number;
  wallMsMax: number;
  simSPerWallS: number;
  simSPerWallSMin: number;
  simSPerWallSMax: number;
  /**
   * Simulated seconds per CPU second of this process (all its threads), median of the
   * rounds: time spent waiting for a core on a busy machine is not in it, so it moves
   * far less with load than the wall figure (cache contention still shows).
   */
  simSPerCpuS: number;
  /** Events of one round (deterministic). */
  events: number;
  eventsPerWallS: number;
  /** Sampled estimate of bytes allocated per event (undefined: no inspector). */
  bytesPerEvent: number | undefined;
  /**
   * Minor page faults of the process in a timed round, median of the rounds: fresh heap
   * pages (see page-faults.ts). Rounds that took none ran fastest.
   */
  pageFaultsPerRound: number;
  acquisitions: number;
}

const SIM_S = 30;
const SEEDS = [1, 2, 3, 4, 5];

/** Timed rounds per row; the median is the figure, min and max its spread. */
const ROUNDS = 7;

/** Sampling interval of the heap profiler: small enough that a round holds many thousands of samples. */
const HEAP_SAMPLING_INTERVAL_BYTES = 4096;

/** Issue 17's target for 5 nodes × 10 clients: simulated seconds per wall second. */
export const RAFT_ZK_TARGET_SIM_S_PER_WALL_S = 700;

interface RoundOut {
  simUs: number;
  events: number;
  acquisitions: number;
}

function round(s: Scenario): RoundOut {
  let simUs = 0;
  let events = 0;
  let acquisitions = 0;
  for (const seed of SEEDS) {
    const out = runScenario(s, seed);
    simUs += out.meta.endUs;
    events += out.meta.eventsRun;
    for (const e of out.history) if (e.f === "acquire" && e.type === "ok") acquisitions++;
  }
  return { simUs, events, acquisitions };
}

interface SampledNode {
  selfSize: number;
  children: SampledNode[];
}

function totalSelfSize(root: SampledNode): number {
  // Iterative: a deep call tree must not overflow the stack.
  let bytes = 0;
  const stack = [root];
  for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
    bytes += n.selfSize;
    for (const c of n.children) stack.push(c);
  }
  return bytes;
}

/** Bytes allocated during one round, as V8's sampling heap profiler estimates them (collected objects included). */
async function bytesAllocated(s: Scenario): Promise<{ bytes: number; events: number } | undefined> {
  const session = new Session();
  try {
    session.connect();
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: HEAP_SAMPLING_INTERVAL_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    const { events } = round(s);
    const { profile } = (await session.post("HeapProfiler.stopSampling")) as { profile: { head: SampledNode } };
    return { bytes: totalSelfSize(profile.head), events };
  } catch {
    return undefined; // no inspector in this build of node: the figure is left out
  } finally {
    session.disconnect();
  }
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(name: string, s: Scenario, servers: number): Promise<RaftZkBenchRow> {
  // Warm the JIT on a whole round first (a 2 s run left the long run half-compiled and
  // reported a third of the steady speed), so every row is measured alike.
  let out = round(s);
  const walls: number[] = [];
  const cpus: number[] = [];
  const faults: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // No forced GC between rounds: a full GC by gc() threw away optimized code (V8
    // optimized 1708 functions over six rounds with one before each, 476 without), so
    // every round after it ran partly unoptimized, at about half the speed, and the
    // compiler's thread filled the second core. A sweep forces no GC between seeds.
    const c0 = process.cpuUsage();
    const f0 = minorFaults();
    const t0 = performance.now();
    out = round(s);
    walls.push(performance.now() - t0);
    faults.push(minorFaults() - f0);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / 1000);
  }
  const alloc = await bytesAllocated(s);
  const simS = out.simUs / 1e6;
  const wallMs = median(walls);
  const wallMsMin = Math.min(...walls);
  const wallMsMax = Math.max(...walls);
  return {
    name,
    servers,
    clients: s.clients.length,
    simS,
    wallMs,
    wallMsMin,
    wallMsMax,
    simSPerWallS: simS / (wallMs / 1000),
    simSPerWallSMin: simS / (wallMsMax / 1000),
    simSPerWallSMax: simS / (wallMsMin / 1000),
    simSPerCpuS: simS / (median(cpus) / 1000),
    events: out.events,
    eventsPerWallS: out.events / (wallMs / 1000),
    bytesPerEvent: alloc ? alloc.bytes / alloc.events : undefined,
    pageFaultsPerRound: median(faults),
    acquisitions: out.acquisitions,
  };
}

/** A baseline scenario at bench size: 5 nodes, 10 clients, SIM_S simulated seconds. */
function benchSized(scenario: string): Scenario {
  const base = loadScenario(scenario);
  return {
    ...base,
    name: `bench-${scenario}`,
    durationMs: SIM_S * 1000,
    clients: Array.from({ length: 10 }, (_, i) => ({ id: `c${i + 1}`, startMs: 0 })),
    designOptions: { ...(base.designOptions as object), nodes: 5 },
  };
}

export async function main(): Promise<RaftZkBenchRow[]> {
  const naive = loadScenario("naive-baseline");
  const rows = [
    await measure("raft-zk (5 nodes, 10 clients)", benchSized("raft-zk-baseline"), 5),
    await measure("etcd-lease (5 nodes, 10 clients)", benchSized("etcd-lease-baseline"), 5),
    await measure("naive-baseline (1 Redis, 3 clients)", { ...naive, durationMs: SIM_S * 1000 }, 1),
  ];
  console.log(`simulated ${SIM_S} s × seeds ${SEEDS.join(",")} per round, one process, median of ${ROUNDS} rounds [slowest–fastest] after a warm-up round`);
  for (const r of rows) {
    const spread = `[${r.simSPerWallSMin.toFixed(0)}–${r.simSPerWallSMax.toFixed(0)}]`;
    const bytes = r.bytesPerEvent === undefined ? "n/a" : r.bytesPerEvent.toFixed(0);
    console.log(
      `${r.name.padEnd(38)} ${r.simSPerWallS.toFixed(1).padStart(8)} sim s / wall s ${spread.padStart(12)} ${r.simSPerCpuS.toFixed(1).padStart(8)} sim s / CPU s  ${Math.round(r.eventsPerWallS).toString().padStart(9)} events / wall s  ` +
        `${bytes.padStart(5)} B / event  ${r.events} events, ${r.acquisitions} acquisitions, ${r.wallMs.toFixed(0)} ms wall a round, ${r.pageFaultsPerRound} page faults a round`,
    );
  }
  const fault = pageFaultCost();
  const zkRow = rows[0]!;
  console.log(
    `page faults: one costs ${fault.usPerFault.toFixed(2)} µs on this machine (a fresh buffer touched page by page); raft-zk's ${zkRow.pageFaultsPerRound} a round are then ~${((zkRow.pageFaultsPerRound * fault.usPerFault) / 1000).toFixed(0)} ms of its ${zkRow.wallMs.toFixed(0)} ms (V8 maps fresh old-space pages for a run's promoted state)`,
  );
  const naiveRow = rows[rows.length - 1]!;
  reportTarget(
    `: raft-zk 5 nodes × 10 clients ≥ ${RAFT_ZK_TARGET_SIM_S_PER_WALL_S} sim s / wall s: ${zkRow.simSPerWallS.toFixed(0)} (${(zkRow.simSPerWallS / RAFT_ZK_TARGET_SIM_S_PER_WALL_S).toFixed(2)} of the target; ${(zkRow.simSPerWallS / naiveRow.simSPerWallS).toFixed(2)}× naive-baseline in this run; ${zkRow.pageFaultsPerRound} page faults a round at ${fault.usPerFault.toFixed(1)} µs each)`,
  );
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main();
}
