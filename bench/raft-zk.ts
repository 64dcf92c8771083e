/**
 * Benchmark of Raft-ZK in the simulator: a 5-node cluster with 10 clients taking turns
 * on one lock (the recipe, sessions, pings), beside the walking skeleton's
 * naive-baseline (one Redis node, 3 clients), measured in the same run. Prints
 * simulated seconds per wall second and events per wall second for each; checkers
 * are not timed. The figures are reported, never judged.
 *
 * Run: npx tsx bench/raft-zk.ts
 */
import { pathToFileURL } from "node:url";
import { loadScenario } from "../scenarios/index.js";
import type { Scenario } from "../scenarios/schema.js";
import { runScenario } from "../sim/runner.js";

export interface RaftZkBenchRow {
  name: string;
  servers: number;
  clients: number;
  simS: number;
  wallMs: number;
  simSPerWallS: number;
  events: number;
  eventsPerWallS: number;
  acquisitions: number;
}

const SIM_S = 30;

function measure(name: string, s: Scenario, servers: number): RaftZkBenchRow {
  // Warm the JIT on a short run first, so both rows are measured alike.
  runScenario({ ...s, durationMs: 2000 }, 1);
  const t0 = performance.now();
  const out = runScenario(s, 1);
  const wallMs = performance.now() - t0;
  const simS = out.meta.endUs / 1e6;
  return {
    name,
    servers,
    clients: s.clients.length,
    simS,
    wallMs,
    simSPerWallS: simS / (wallMs / 1000),
    events: out.meta.eventsRun,
    eventsPerWallS: out.meta.eventsRun / (wallMs / 1000),
    acquisitions: out.history.filter((e) => e.f === "acquire" && e.type === "ok").length,
  };
}

export async function main(): Promise<RaftZkBenchRow[]> {
  const base = loadScenario("raft-zk-baseline");
  const zk: Scenario = {
    ...base,
    name: "bench-raft-zk",
    durationMs: SIM_S * 1000,
    clients: Array.from({ length: 10 }, (_, i) => ({ id: `c${i + 1}`, startMs: 0 })),
    designOptions: { ...(base.designOptions as object), nodes: 5 },
  };
  const naive = loadScenario("naive-baseline");
  const rows = [measure("raft-zk (5 nodes, 10 clients)", zk, 5), measure("naive-baseline (1 Redis, 3 clients)", { ...naive, durationMs: SIM_S * 1000 }, 1)];
  console.log(`simulated ${SIM_S} s each, seed 1, one process`);
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(38)} ${r.simSPerWallS.toFixed(1).padStart(8)} sim s / wall s  ${Math.round(r.eventsPerWallS).toString().padStart(9)} events / wall s  ` +
        `${r.events} events, ${r.acquisitions} acquisitions, ${r.wallMs.toFixed(0)} ms wall`,
    );
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main();
}
