// One ioredis connection to a loopback redis-server, as the recipes use it: connected before
// the run starts, the design's request timeout as ioredis's commandTimeout, no command
// replayed after a reconnect (a replayed SET NX would be a second, unrecorded attempt).
// Real mode only: the host's clock and timers here are the point, not a leak (only real/ and
// the designs' real-* files import this; the simulator never loads it).
import { Redis } from "ioredis";
import type { RedisEndpoint } from "./real-recipe.js";

export function ioredisConnection(e: RedisEndpoint, requestTimeoutMs: number): Redis {
  const r = new Redis({
    host: e.host,
    port: e.port,
    lazyConnect: true,
    commandTimeout: requestTimeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 5_000,
    retryStrategy: (times: number) => Math.min(times * 50, 500),
  });
  // Connection errors surface as failed commands; an unhandled 'error' event would kill the process.
  r.on("error", () => {});
  return r;
}

/**
 * A connection to whichever server the sentinels name as the primary (ioredis's Sentinel
 * client): asked again on every reconnect, every `retryDelayMs` — as the model's client asks
 * its sentinel after each failed attempt — and checked to be a primary (ROLE) before use.
 */
export function ioredisSentinelConnection(sentinels: RedisEndpoint[], masterName: string, requestTimeoutMs: number, retryDelayMs: number): Redis {
  const r = new Redis({
    sentinels: sentinels.map((e) => ({ host: e.host, port: e.port })),
    name: masterName,
    lazyConnect: true,
    commandTimeout: requestTimeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 5_000,
    sentinelCommandTimeout: requestTimeoutMs,
    retryStrategy: () => retryDelayMs,
    sentinelRetryStrategy: () => retryDelayMs,
  });
  r.on("error", () => {});
  return r;
}

/**
 * connect(), and if the connection closes during set-up, wait (bounded) for ioredis's own
 * reconnect to become ready. Seen 2 times in ~25 redlock runs through the per-link proxies,
 * cause not found: "Connection is closed" before the client was ready. This is set-up,
 * before the run's t0, so a second connection attempt changes nothing in the history.
 */
export async function connectReady(r: Redis, timeoutMs = 5_000): Promise<void> {
  try {
    await r.connect();
  } catch (err) {
    if (r.status === "ready") return;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(err), timeoutMs);
      r.once("ready", () => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}
