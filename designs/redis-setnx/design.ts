import type { DesignEntry } from "../types.js";
import { redisServer } from "../../services/redis/server.js";
import { directConnection } from "../../services/redis/client.js";
import { SetnxLockClient } from "./client.js";
import { picked, REDIS_NODE_OPTIONS, type DesignProfile } from "../profile.js";
import { REDIS_CLOCK_WHY } from "../real-plan.js";
import { setnxPlan } from "./real-plan.js";
import { parseSetnxOptions, type SingleNodeSetnxOptions } from "./options.js";

/** The one node of a single-node design. */
const NODE = "redis-1";

/** What a single-node SET NX PX design declares: one node holds the key, unreplicated. */
function setnxProfile(o: SingleNodeSetnxOptions, fencing: boolean): DesignProfile {
  return {
    servers: [NODE],
    lockServers: [NODE],
    keyNodes: [NODE],
    requestTimeoutMs: o.requestTimeoutMs,
    fencing,
    renewsItself: false,
    leader: { none: "its Redis nodes are independent" },
    failover: { none: "does not replicate asynchronously" },
    reference: { design: "redis-setnx", label: "redis-setnx (reference)" },
    onLibrary: { nodes: 1, options: (given) => picked(given, REDIS_NODE_OPTIONS) },
  };
}

/** A single-node SET NX PX design; `fencing` adds the INCR token (redis-fenced). */
export function setnxDesign(name: string, fencing: boolean, description: string): DesignEntry<SingleNodeSetnxOptions> {
  return {
    name,
    description,
    family: "redis-nodes",
    runs: "model",
    parseOptions: parseSetnxOptions,
    setup({ sim, processOptions }, o) {
      sim.addProcess(
        NODE,
        "server",
        processOptions(NODE),
        redisServer({ sweepIntervalMs: o.sweepIntervalMs, persistence: o.persistence, fsyncIntervalMs: o.fsyncIntervalMs }),
      );
      return {
        serverIds: [NODE],
        fencing,
        createClient: (ctx) =>
          new SetnxLockClient(ctx, { conn: directConnection(ctx, NODE, o.requestTimeoutMs), retryDelayMs: o.retryDelayMs, fencing, release: o.release }),
      };
    },
    profile: (o) => setnxProfile(o, fencing),
    real: { plan: (s, o, notApplied) => setnxPlan(s, o, fencing, notApplied), serverClocksWhy: REDIS_CLOCK_WHY },
  };
}

export const redisSetnx = setnxDesign(
  "redis-setnx",
  false,
  "single Redis node, SET NX PX with a random token, compare-and-delete release (design brief 000, approach 1); no fencing token",
);

export { SETNX_OPTION_FIELDS, parseSetnxFields, parseSetnxOptions, type SetnxDesignOptions, type SingleNodeSetnxOptions } from "./options.js";
