/**
 * Benchmark of the Raft core in the simulator: a 5-node cluster with steady proposals
 * at the leader (100 and 1000 per simulated second), run for 30 simulated seconds.
 * Prints simulated seconds per wall second, events and commits per wall second. The
 * figures are reported, never judged.
 *
 * Run: npx tsx bench/raft.ts
 */
import { pathToFileURL } from "node:url";
import { Simulation } from "../sim/simulation.js";
import type { RaftHost } from "../services/raft/api.js";
import { createRaftNode } from "../services/raft/node.js";

export interface RaftBenchRow {
  proposalsPerSimS: number;
  simS: number;
  wallMs: number;
  simSPerWallS: number;
  events: number;
  eventsPerWallS: number;
  applied: number;
}

function runOnce(proposalsPerSimS: number, simS: number): RaftBenchRow {
  const sim = new Simulation({ seed: `bench-raft-${proposalsPerSimS}` });
  const ids = ["s1", "s2", "s3", "s4", "s5"];
  const hosts = new Map<string, RaftHost<number>>();
  let applied = 0;
  for (const id of ids) {
    sim.addProcess(id, "server", {}, (ctx, restarted) => {
      const host = createRaftNode<number>(
        ctx,
        {
          peers: ids,
          electionTimeoutMsMin: 150,
          electionTimeoutMsMax: 300,
          heartbeatIntervalMs: 50,
          apply: (cmd) => {
            applied++;
            return cmd;
          },
        },
        restarted,
      );
      hosts.set(id, host);
      return { onMessage: (from, msg) => host.handleRaftMessage(from, msg) };
    });
  }
  const periodUs = Math.round(1e6 / proposalsPerSimS);
  let cmd = 0;
  const load = (): void => {
    for (const id of ids) {
      const h = hosts.get(id)!;
      if (h.isLeader()) {
        h.propose(cmd++, () => {});
        break;
      }
    }
    sim.schedule(sim.nowUs + periodUs, load);
  };
  sim.schedule(periodUs, load);
  const t0 = process.hrtime.bigint();
  sim.run(simS * 1e6);
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  return {
    proposalsPerSimS,
    simS,
    wallMs: Math.round(wallMs),
    simSPerWallS: Math.round((simS / (wallMs / 1000)) * 10) / 10,
    events: sim.eventsRun,
    eventsPerWallS: Math.round(sim.eventsRun / (wallMs / 1000)),
    applied,
  };
}

export async function main(): Promise<RaftBenchRow[]> {
  const rows = [runOnce(100, 30), runOnce(1000, 30)];
  console.log("raft 5 nodes  proposals/sim-s  sim-s  wall-ms  sim-s/wall-s   events  events/wall-s  applied(all nodes)");
  for (const r of rows) {
    console.log(
      `${"".padEnd(13)} ${String(r.proposalsPerSimS).padStart(15)} ${String(r.simS).padStart(6)} ${String(r.wallMs).padStart(8)} ` +
        `${String(r.simSPerWallS).padStart(13)} ${String(r.events).padStart(8)} ${String(r.eventsPerWallS).padStart(14)} ${String(r.applied).padStart(19)}`,
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
