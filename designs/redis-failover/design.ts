import type { DesignEntry } from "../types.js";
import { redisServer } from "../../services/redis/server.js";
import { sentinelNode } from "../../services/redis/sentinel.js";
import { SentinelConnection } from "../../services/redis/client.js";
import { SetnxLockClient } from "../redis-setnx/client.js";
import type { DesignProfile } from "../profile.js";
import { REDIS_CLOCK_WHY } from "../real-plan.js";
import { failoverPlan } from "./real-plan.js";
import { PRIMARY_ID, SENTINEL_ID, replicaId, parseFailoverOptions, type FailoverDesignOptions } from "./options.js";

/**
 * `redis-failover`: the naive SET NX PX lock (seed 000 approach 1) against a primary
 * with asynchronous replicas and a Sentinel-like monitor — the "add a replica and use
 * it if the primary is unavailable" setup the Redlock page rules out: a lock the
 * primary acknowledged but had not yet replicated is gone after the promotion.
 *
 * Processes: redis-primary, redis-replica-1..n, sentinel. Clients find the primary
 * through the sentinel (services/redis/client.ts SentinelConnection).
 */
const replicaIdsOf = (o: FailoverDesignOptions): string[] => Array.from({ length: o.replicas }, (_, i) => replicaId(i + 1));

/** Sentinel's timing an attack sets when the lock's options do not say (its scenarios use the same), so a failover fits in seconds. */
const PROMPT_FAILOVER = { downAfterMs: 500, sentinelPingMs: 100, requestTimeoutMs: 100, retryDelayMs: 10 };

/** The key lives on the primary, replicated asynchronously; clients talk to the primary Sentinel names. */
function failoverProfile(o: FailoverDesignOptions): DesignProfile {
  const replicas = replicaIdsOf(o);
  return {
    servers: [PRIMARY_ID, ...replicas, SENTINEL_ID],
    lockServers: [PRIMARY_ID],
    keyNodes: [],
    requestTimeoutMs: o.requestTimeoutMs,
    fencing: o.fencing,
    renewsItself: false,
    leader: { none: "its primary is chosen by Sentinel (see async-failover)" },
    failover: { primary: PRIMARY_ID, replicas, promptOptions: PROMPT_FAILOVER },
    reference: { design: "redis-setnx", label: "redis-setnx (reference)" },
  };
}

export const redisFailover: DesignEntry<FailoverDesignOptions> = {
  name: "redis-failover",
  description: "SET NX PX lock on a Redis primary with asynchronous replicas and Sentinel failover; an acknowledged but unreplicated lock is lost on promotion",
  family: "redis-replicated",
  runs: "model",
  parseOptions: parseFailoverOptions,
  profile: failoverProfile,
  real: { plan: failoverPlan, serverClocksWhy: REDIS_CLOCK_WHY },
  setup({ sim, processOptions }, o) {
    const replicaIds = replicaIdsOf(o);
    const common = {
      sweepIntervalMs: o.sweepIntervalMs,
      persistence: o.persistence,
      fsyncIntervalMs: o.fsyncIntervalMs,
      replAckIntervalMs: o.replAckIntervalMs,
    };
    sim.addProcess(PRIMARY_ID, "server", processOptions(PRIMARY_ID), redisServer({ ...common, role: "primary", replicaIds }));
    for (const r of replicaIds) {
      sim.addProcess(r, "server", processOptions(r), redisServer({ ...common, role: "replica", primaryId: PRIMARY_ID }));
    }
    sim.addProcess(
      SENTINEL_ID,
      "server",
      processOptions(SENTINEL_ID),
      sentinelNode({
        primaryId: PRIMARY_ID,
        replicaIds,
        downAfterMs: o.downAfterMs,
        pingIntervalMs: o.sentinelPingMs,
        failoverVoteMs: o.failoverVoteMs,
        infoIntervalMs: o.sentinelInfoMs,
      }),
    );
    return {
      serverIds: [PRIMARY_ID, ...replicaIds, SENTINEL_ID],
      fencing: o.fencing,
      createClient: (ctx) =>
        new SetnxLockClient(ctx, {
          conn: new SentinelConnection(ctx, SENTINEL_ID, o.requestTimeoutMs),
          retryDelayMs: o.retryDelayMs,
          fencing: o.fencing,
          waitReplicas: o.waitReplicas,
          waitTimeoutMs: o.waitTimeoutMs,
        }),
    };
  },
};

export { PRIMARY_ID, SENTINEL_ID, replicaId, parseFailoverOptions, type FailoverDesignOptions } from "./options.js";
