/**
 * The Redis commands lockstep's designs use, as messages. The two scripts are the
 * seeds' Lua: compare-and-delete (release only by the holder) and compare-and-pexpire
 * (extend only by the holder); Redis runs a script atomically, and so do we.
 */
export type RedisCommand =
  | { cmd: "SET"; key: string; value: string; nx?: boolean; pxMs?: number }
  | { cmd: "GET"; key: string }
  | { cmd: "DEL"; key: string }
  | { cmd: "PEXPIRE"; key: string; ms: number }
  | { cmd: "PTTL"; key: string }
  | { cmd: "INCR"; key: string }
  /** if GET key == value then DEL key (returns 1) else 0 */
  | { cmd: "CAD"; key: string; value: string }
  /** if GET key == value then PEXPIRE key ms (returns 1) else 0 */
  | { cmd: "CAPEXPIRE"; key: string; value: string; ms: number };

/**
 * WAIT numreplicas timeout: block until every write this node made so far is acknowledged
 * by `numReplicas` replicas or `timeoutMs` passes; the reply is how many acknowledged.
 * Apart from RedisCommand: it names no key and touches no data.
 */
export interface RedisWait {
  cmd: "WAIT";
  numReplicas: number;
  timeoutMs: number;
}

/** What a client sends a node: a data command or WAIT. */
export type RedisRequest = RedisCommand | RedisWait;

/** Redis replies: "OK", null (nil), integers, bulk strings, or an error. */
export type RedisReply = "OK" | null | number | string | { error: string };

export const REDIS_REQUEST = "redis";
export const REDIS_REPLY = "redis-reply";

/** Commands that change the data set (propagated to the AOF and replicas). */
export function isWrite(c: RedisCommand): boolean {
  return c.cmd !== "GET" && c.cmd !== "PTTL";
}
