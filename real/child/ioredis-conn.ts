// One ioredis connection to a loopback redis-server, as the recipes use it: connected before
// the run starts, the design's request timeout as ioredis's commandTimeout, no command
// replayed after a reconnect (a replayed SET NX would be a second, unrecorded attempt).
import { Redis } from "ioredis";
import type { RedisEndpoint } from "../protocol.js";

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
