import type { DesignEntry } from "../types.js";
import { Fields } from "../../sim/validate.js";
import { InputError } from "../../sim/errors.js";
import { redisServer } from "../../services/redis/server.js";
import { sentinelNode } from "../../services/redis/sentinel.js";
import { SentinelConnection } from "../../services/redis/client.js";
import { SETNX_OPTION_FIELDS, parseSetnxFields, type SetnxDesignOptions } from "../redis-setnx/design.js";
import { SetnxLockClient } from "../redis-setnx/client.js";
import type { DesignProfile } from "../profile.js";

/**
 * `redis-failover`: the naive SET NX PX lock (seed 000 approach 1) against a primary
 * with asynchronous replicas and a Sentinel-like monitor — the "add a replica and use
 * it if the primary is unavailable" setup the Redlock page rules out: a lock the
 * primary acknowledged but had not yet replicated is gone after the promotion.
 *
 * Processes: redis-primary, redis-replica-1..n, sentinel. Clients find the primary
 * through the sentinel (services/redis/client.ts SentinelConnection).
 */
export interface FailoverDesignOptions extends SetnxDesignOptions {
  replicas: number;
  downAfterMs: number;
  sentinelPingMs: number;
  failoverVoteMs: number;
  sentinelInfoMs: number;
  replAckIntervalMs: number;
  fencing: boolean;
  /** After taking the lock, WAIT for this many replicas (0: none, Redis's default use). */
  waitReplicas: number;
  waitTimeoutMs: number;
}

export const PRIMARY_ID = "redis-primary";
export const SENTINEL_ID = "sentinel";
export const replicaId = (i: number): string => `redis-replica-${i}`;

export function parseFailoverOptions(raw: unknown, file: string, prefix: string): FailoverDesignOptions {
  const f = Fields.root(file, raw ?? {}, prefix).only([
    ...SETNX_OPTION_FIELDS,
    "replicas",
    "downAfterMs",
    "sentinelPingMs",
    "failoverVoteMs",
    "sentinelInfoMs",
    "replAckIntervalMs",
    "fencing",
    "waitReplicas",
    "waitTimeoutMs",
  ]);
  const setnx = parseSetnxFields(f);
  const replicas = f.number("replicas", { integer: true, min: 1, max: 8, dflt: 1 });
  const o: FailoverDesignOptions = {
    ...setnx,
    replicas,
    // Sentinel's defaults: down-after-milliseconds 30 s, one PING a second.
    downAfterMs: f.number("downAfterMs", { min: 1, dflt: 30_000 }),
    sentinelPingMs: f.number("sentinelPingMs", { min: 1, dflt: 1000 }),
    // Measured on three real Sentinel 7.0 processes (services/redis/sentinel.ts); 0 = instant.
    failoverVoteMs: f.number("failoverVoteMs", { min: 0, max: 60_000, dflt: 220 }),
    sentinelInfoMs: f.number("sentinelInfoMs", { min: 0, max: 60_000, dflt: 1000 }),
    replAckIntervalMs: f.number("replAckIntervalMs", { min: 1, dflt: 1000 }),
    fencing: f.boolean("fencing", false),
    waitTimeoutMs: f.number("waitTimeoutMs", { min: 1, dflt: 50 }),
    waitReplicas: f.number("waitReplicas", { integer: true, min: 0, max: replicas, dflt: 0 }),
  };
  if (o.waitTimeoutMs >= o.requestTimeoutMs) {
    throw new InputError(
      file,
      f.field("waitTimeoutMs"),
      `expected less than requestTimeoutMs (${o.requestTimeoutMs}): the connection would give up on WAIT first, got ${o.waitTimeoutMs}`,
    );
  }
  if (o.sentinelPingMs > o.downAfterMs) {
    throw new InputError(file, f.field("sentinelPingMs"), `expected at most downAfterMs (${o.downAfterMs}), got ${o.sentinelPingMs}`);
  }
  return o;
}

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
