/** redis-failover's options and process ids: the SET NX fields, the replicas, Sentinel's timing, WAIT. */
import { Fields } from "../../sim/validate.js";
import { InputError } from "../../sim/errors.js";
import { SETNX_OPTION_FIELDS, parseSetnxFields, type SetnxDesignOptions } from "../redis-setnx/options.js";

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
