/**
 * redis-failover in real mode: a primary, its replicas (replicating through driver proxies)
 * and three redis-sentinels; the SET NX PX recipe on ioredis's Sentinel client.
 */
import { PRIMARY_ID, replicaId, SENTINEL_ID, type FailoverDesignOptions } from "./options.js";
import { given, noteSweep, refuse, type RealDesignPlan, type RealPlanInput } from "../real-plan.js";
import type { SetnxRecipeConfig } from "../redis-setnx/real-plan.js";

/** The name the sentinels monitor the primary under (real/failover.ts). */
export const MASTER_NAME = "lockstep";

/** Real Sentinel needs a majority of sentinels to fail over; three is the smallest set that survives one. */
const SENTINELS = 3;

export function failoverPlan(s: RealPlanInput, o: FailoverDesignOptions, notApplied: string[]): RealDesignPlan {
  if (o.persistence !== "none") {
    refuse(
      s,
      "designOptions.persistence",
      `a crashed primary's AOF would have to be cut back to its last fsync (a host crash), which real mode does not do for redis-failover yet; expected "none", got "${o.persistence}"`,
    );
  }
  if (o.fencing) refuse(s, "designOptions.fencing", "the real failover client takes no fencing token yet; expected false");
  if (o.waitReplicas !== 0) refuse(s, "designOptions.waitReplicas", `the real failover client sends no WAIT yet; expected 0, got ${o.waitReplicas}`);
  // The model's failover timing was measured on real sentinels; real ones cannot be told it.
  if (o.failoverVoteMs !== 220)
    refuse(s, "designOptions.failoverVoteMs", `real Sentinels take their own time to vote; expected the measured default 220, got ${o.failoverVoteMs}`);
  if (o.sentinelInfoMs !== 1000)
    refuse(s, "designOptions.sentinelInfoMs", `real Sentinels poll INFO once a second during a failover; expected 1000, got ${o.sentinelInfoMs}`);
  noteSweep(s, notApplied);
  const g = given(s);
  notApplied.push(
    `designOptions.sentinelPingMs (${o.sentinelPingMs} ms): redis-sentinel pings every min(1000 ms, down-after-milliseconds); one sentinel in the simulator is ${SENTINELS} here (quorum 2: real Sentinel fails over only with a majority)`,
  );
  if (g.replAckIntervalMs !== undefined)
    notApplied.push(`designOptions.replAckIntervalMs (${o.replAckIntervalMs} ms): replicas send REPLCONF ACK every second`);
  const replicas = Array.from({ length: o.replicas }, (_, i) => replicaId(i + 1));
  const sentinels = Array.from({ length: SENTINELS }, (_, i) => `${SENTINEL_ID}-${i + 1}`);
  return {
    name: s.design,
    redis: [{ id: PRIMARY_ID, aof: false }, ...replicas.map((id) => ({ id, aof: false as const }))],
    failover: { primary: PRIMARY_ID, replicas, sentinels, downAfterMs: o.downAfterMs },
    fencing: false,
    packages: ["ioredis"],
    clients: `the SET NX PX recipe on ioredis's Sentinel client (${SENTINELS} sentinels, down-after ${o.downAfterMs} ms; Lua compare-and-delete release)`,
    recipe: (eps): SetnxRecipeConfig => ({
      client: "redis-setnx/real-client.js",
      kind: "setnx",
      redis: eps[0]!,
      sentinels: eps.filter((e) => sentinels.includes(e.id)),
      masterName: MASTER_NAME,
      requestTimeoutMs: o.requestTimeoutMs,
      retryDelayMs: o.retryDelayMs,
      fencing: false,
    }),
  };
}
