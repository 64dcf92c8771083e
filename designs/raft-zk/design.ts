import type { DesignEntry } from "../types.js";
import { raftServiceProfile } from "../profile.js";
import type { CreateRaftNode } from "../../services/raft/api.js";
import { createRaftNode } from "../../services/raft/node.js";
import { Fields } from "../../sim/validate.js";
import { RAFT_SERVICE_FIELDS, parseRaftServiceFields, serverIds, type RaftServiceOptions } from "../../services/raft-service/options.js";
import { ZK_RECIPE_FIELDS, parseZkRecipe, type ZkRecipeOptions } from "./recipe.js";
import { zkServer } from "./server.js";
import { ZkClient } from "./client.js";
import { ZkLockClient } from "./lock.js";

/** Bugs of the Raft-ZK service that a scenario can switch on (designOptions.bugs). */
export const RAFT_ZK_BUGS = ["followerSessionExpiry"] as const;

/** raft-zk's options: the Raft service's, plus the lock recipe's client-side switches (recipe.ts). */
export interface RaftZkOptions extends RaftServiceOptions {
  recipe: ZkRecipeOptions;
  /** Chubby-style lock-delay after a session expiry, ms (server side; 0: off). */
  lockDelayMs: number;
}

export function parseRaftZkOptions(raw: unknown, file: string, prefix: string): RaftZkOptions {
  const f = Fields.root(file, raw ?? {}, prefix).only([...RAFT_SERVICE_FIELDS, ...ZK_RECIPE_FIELDS, "lockDelayMs"]);
  return { ...parseRaftServiceFields(f, RAFT_ZK_BUGS, "zk"), recipe: parseZkRecipe(f), lockDelayMs: f.number("lockDelayMs", { min: 0, dflt: 0 }) };
}

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
