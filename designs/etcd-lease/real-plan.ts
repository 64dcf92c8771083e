/** etcd-lease in real mode: an etcd cluster; concurrency.Mutex on the etcd3 client (real-client.ts). */
import type { EtcdLeaseOptions } from "./options.js";
import { requestBudgetMs } from "../../services/raft-service/session-grants.js";
import { ETCD_ELECTION_MS, ETCD_LEASE_TTL_S_MIN, leaderOpt, raftServiceCommon, refuse, type RealDesignPlan, type RealPlanInput } from "../real-plan.js";
import type { RecipeConfig } from "../real-recipe.js";

/** The recipe config this design's real client runs (designs/real-recipe.ts). */
export interface EtcdMutexRecipeConfig extends RecipeConfig {
  /** etcd's concurrency.Mutex on the etcd3 client (designs/etcd-lease/real-client.ts). */
  kind: "etcd-mutex";
  /** Client URLs of the cluster's members (http://127.0.0.1:port). */
  endpoints: string[];
  /** The session lease's TTL, whole seconds (etcd's unit). */
  leaseTtlS: number;
  clockDriftMarginMs: number;
  /** Deadline of one gRPC call, ms (the design's requestTimeoutMs × 4, as its request budget). */
  callTimeoutMs: number;
  watchPollMs: number;
}

export function etcdPlan(s: RealPlanInput, o: EtcdLeaseOptions, notApplied: string[]): RealDesignPlan {
  // The real child runs etcd v3.5's Mutex with the session check; another variant would test the wrong recipe.
  if (o.mutexVersion !== "3.5")
    refuse(s, "designOptions.mutexVersion", `the real client runs etcd v3.5's Mutex (the #11456 check after waiting) only; got "${o.mutexVersion}"`);
  if (o.holderCheck !== "session")
    refuse(s, "designOptions.holderCheck", `the real client stops trusting its lock when its lease may have expired ("session") only; got "${o.holderCheck}"`);
  if (o.staleLeaderRevoke !== "dropped")
    refuse(
      s,
      "designOptions.staleLeaderRevoke",
      `a model of etcd before PR 16822; the real etcd-server is the version installed; got "${o.staleLeaderRevoke}"`,
    );
  const ttlS = o.sessionTimeoutMs / 1000;
  if (!Number.isInteger(ttlS) || ttlS < ETCD_LEASE_TTL_S_MIN) {
    refuse(
      s,
      "designOptions.sessionTimeoutMs",
      `etcd lease TTLs are whole seconds, at least ${ETCD_LEASE_TTL_S_MIN} s with a ${ETCD_ELECTION_MS} ms election timeout; expected a multiple of 1000 from ${ETCD_LEASE_TTL_S_MIN * 1000}, got ${o.sessionTimeoutMs}`,
    );
  }
  const ids = raftServiceCommon(s, o, "etcd", notApplied);
  notApplied.push(
    `designOptions.heartbeatIntervalMs (${o.heartbeatIntervalMs} ms): etcd3 1.1.2 sends a lease keepalive every TTL/3 (${Math.round((o.sessionTimeoutMs / 3) * 10) / 10} ms)`,
  );
  return {
    name: s.design,
    redis: [],
    cluster: { kind: "etcd", ids, ...leaderOpt(o) },
    fencing: true,
    packages: ["etcd3"],
    clients: `etcd's concurrency.Mutex on the etcd3 client (lease + keepalive, Txn on create revision, watch of the next-lower key; token = create revision) against ${ids.length} etcd members`,
    recipe: (eps): EtcdMutexRecipeConfig => ({
      client: "etcd-lease/real-client.js",
      kind: "etcd-mutex",
      endpoints: eps.map((e) => `http://${e.host}:${e.port}`),
      leaseTtlS: ttlS,
      clockDriftMarginMs: o.clockDriftMarginMs,
      callTimeoutMs: requestBudgetMs({ o }),
      watchPollMs: o.watchPollMs,
    }),
  };
}
