import type { DesignEntry } from "../types.js";
import { raftServiceProfile } from "../profile.js";
import { zkPlan } from "./real-plan.js";
import type { CreateRaftNode } from "../../services/raft/api.js";
import { createRaftNode } from "../../services/raft/node.js";
import { serverIds } from "../../services/raft-service/options.js";
import { zkServer } from "./server.js";
import { ZkClient } from "./client.js";
import { ZkLockClient } from "./lock.js";
import { parseRaftZkOptions, type RaftZkOptions } from "./options.js";

/** The design, with the Raft core injectable (tests may run it on another core). */
export function raftZkDesign(createRaft: CreateRaftNode): DesignEntry<RaftZkOptions> {
  const name = "raft-zk";
  return {
    name,
    description:
      "ZooKeeper-like tree on Raft (design brief 002): sessions expired by the leader, ephemeral sequential lock nodes, predecessor watches; token = creation zxid",
    family: "raft",
    runs: "model",
    profile: (o) => raftServiceProfile(name, "zk", o),
    real: { plan: zkPlan, serverClocksWhy: "ZooKeeper's JVM would need libfaketime and its clients' Node processes too; not wired up", sizedByNodes: true },
    parseOptions: parseRaftZkOptions,
    setup({ sim, processOptions }, o) {
      const peers = serverIds("zk", o.nodes);
      for (const id of peers) sim.addProcess(id, "server", processOptions(id), zkServer({ peers, options: o, createRaft, lockDelayMs: o.lockDelayMs }));
      return {
        serverIds: peers,
        fencing: true,
        createClient: (ctx) =>
          new ZkLockClient(
            new ZkClient(ctx, {
              servers: peers,
              sessionTimeoutMs: o.sessionTimeoutMs,
              heartbeatIntervalMs: o.heartbeatIntervalMs,
              clockDriftMarginMs: o.clockDriftMarginMs,
              requestTimeoutMs: o.requestTimeoutMs,
            }),
            "/locks",
            o.watchPollMs,
            o.recipe,
          ),
      };
    },
  };
}

export const raftZk = raftZkDesign(createRaftNode);

export { RAFT_ZK_BUGS, parseRaftZkOptions, type RaftZkOptions } from "./options.js";
