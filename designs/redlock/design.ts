import type { DesignEntry } from "../types.js";
import { InputError } from "../../sim/errors.js";
import { redisServer } from "../../services/redis/server.js";
import { RedlockClient } from "./client.js";
import { picked, REDIS_NODE_OPTIONS, type DesignProfile } from "../profile.js";
import { REDIS_CLOCK_WHY } from "../real-plan.js";
import { redlockPlan } from "./real-plan.js";
import { redlockNodeId, parseRedlockOptions, type RedlockDesignOptions } from "./options.js";

/** The model's options node-redlock takes too, by node-redlock's names. */
const NODE_REDLOCK_OPTIONS: Record<string, string> = {
  driftFactor: "driftFactor",
  retryCount: "retryCount",
  retryDelayMs: "retryDelay",
  retryJitterMs: "retryJitter",
};

/**
 * node-redlock's settings from the model's, where the scenario sets them. The model's
 * per-node timeout (the Redis docs' 5-50 ms) is not node-redlock's: the library waits for
 * every node. The same behaviour comes from the client's commandTimeout, so that is what
 * the model's requestTimeoutMs becomes.
 */
function onNodeRedlock(given: Record<string, unknown>, o: RedlockDesignOptions): Record<string, unknown> {
  const redlock: Record<string, unknown> = {};
  for (const [ours, theirs] of Object.entries(NODE_REDLOCK_OPTIONS)) if (ours in given) redlock[theirs] = given[ours];
  return { ...picked(given, REDIS_NODE_OPTIONS), options: { redlock, ioredis: { commandTimeout: o.requestTimeoutMs } } };
}

/** N independent nodes, each its own copy of the key; node-redlock v5's using() renews. */
function redlockProfile(o: RedlockDesignOptions): DesignProfile {
  const nodes = Array.from({ length: o.nodes }, (_, i) => redlockNodeId(i + 1));
  return {
    servers: nodes,
    lockServers: nodes,
    keyNodes: nodes,
    requestTimeoutMs: o.requestTimeoutMs,
    fencing: false,
    renewsItself: o.using,
    leader: { none: "its Redis nodes are independent" },
    failover: { none: "does not replicate asynchronously" },
    reference: { design: "redlock", designOptions: { nodes: o.nodes }, label: "redlock (reference)" },
    onLibrary: { nodes: o.nodes, options: (given) => onNodeRedlock(given, o) },
  };
}

export const redlock: DesignEntry<RedlockDesignOptions> = {
  name: "redlock",
  description:
    'Redlock over N independent Redis nodes (default 5), as node-redlock builds it: same token everywhere, quorum N/2+1, validity = TTL − elapsed − drift; designOptions.variant "seed-000" for design brief 000\'s simpler loop',
  family: "redis-nodes",
  runs: "model",
  parseOptions: parseRedlockOptions,
  profile: redlockProfile,
  real: { plan: redlockPlan, serverClocksWhy: REDIS_CLOCK_WHY },
  checkWorkload(o, workload, file) {
    // using() throws this itself before acquiring: "A lock `duration` must be at least
    // 100ms greater than the `automaticExtensionThreshold` setting."
    if (o.using && o.automaticExtensionThresholdMs > workload.ttlMs - 100) {
      throw new InputError(
        file,
        "designOptions.automaticExtensionThresholdMs",
        `expected at most workload.ttlMs − 100 = ${workload.ttlMs - 100} (node-redlock v5's using() refuses a duration less than 100 ms above the threshold), got ${o.automaticExtensionThresholdMs}`,
      );
    }
  },
  setup({ sim, processOptions }, o) {
    const { nodes: count, persistence, fsyncIntervalMs, sweepIntervalMs, ...clientOptions } = o;
    const nodes = Array.from({ length: count }, (_, i) => redlockNodeId(i + 1));
    for (const n of nodes) {
      sim.addProcess(n, "server", processOptions(n), redisServer({ sweepIntervalMs, persistence, fsyncIntervalMs }));
    }
    return {
      serverIds: nodes,
      fencing: false,
      createClient: (ctx) => new RedlockClient(ctx, { ...clientOptions, nodes }),
    };
  },
};

export { redlockNodeId, parseRedlockOptions, type RedlockDesignOptions } from "./options.js";
