// The seeds' SET NX PX lock on real Redis with ioredis, step for step as
// designs/redis-setnx/client.ts models it: a random token per acquisition, `SET lock:<name>
// token NX PX ttl` polled every retryDelayMs until waitMs has passed (on the wall clock, as
// the seed's time.time() loop), release by a Lua compare-and-delete (EVAL), extend by a Lua
// compare-and-pexpire; with `fencing`, `INCR fence:<name>` after the SET gives the token
// (not atomic with the SET, as in seed 001). The client believes it holds the lock for
// ttlMs from the moment it sent the winning SET, on the monotonic run clock.
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { SetnxRecipeConfig } from "./real-plan.js";
import { connectReady, ioredisConnection, ioredisSentinelConnection } from "../real-ioredis.js";
import { errorText, sleepMs, type RealGrant, type RealLockClient, type RealClientFactory } from "../real-client.js";
import type { AcquireResult, ExtendResult, ReleaseResult } from "../types.js";
import { packageVersion } from "../real-packages.js";

/** Compare-and-delete: only the holder's token deletes the key. */
export const CAD_LUA = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
/** Compare-and-pexpire: only the holder's token extends the key. */
export const CAPEXPIRE_LUA = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;

type SetnxConfig = SetnxRecipeConfig;

export class SetnxRecipe implements RealLockClient {
  private readonly redis: Redis;

  constructor(
    private readonly cfg: SetnxConfig,
    private readonly nowUs: () => number,
  ) {
    this.redis = cfg.sentinels
      ? ioredisSentinelConnection(cfg.sentinels, cfg.masterName ?? "mymaster", cfg.requestTimeoutMs, cfg.retryDelayMs)
      : ioredisConnection(cfg.redis, cfg.requestTimeoutMs);
  }

  async connect(): Promise<void> {
    await connectReady(this.redis);
  }

  async acquire(lock: string, o: { ttlMs: number; waitMs: number }): Promise<AcquireResult<RealGrant>> {
    const key = `lock:${lock}`;
    const secret = randomBytes(16).toString("hex");
    const endWallMs = Date.now() + o.waitMs;
    let timedOut = false;
    // Each attempt but the last sleeps retryDelayMs, so waitMs bounds the attempts; the cap is a backstop.
    const attemptsMax = Math.ceil(o.waitMs / this.cfg.retryDelayMs) + 2;
    for (let attempt = 0; attempt < attemptsMax; attempt++) {
      const sentUs = this.nowUs();
      let reply: string | null = null;
      try {
        reply = await this.redis.set(key, secret, "PX", o.ttlMs, "NX");
      } catch {
        timedOut = true; // the SET may have been applied: outcome unknown unless a later attempt wins
      }
      if (reply === "OK") {
        const grant: RealGrant = { lock, secret, ttlMs: o.ttlMs, validityMs: 0, expiresAtUs: sentUs + o.ttlMs * 1000 };
        if (this.cfg.fencing) {
          let token: unknown;
          try {
            token = await this.redis.incr(`fence:${lock}`);
          } catch {
            token = undefined;
          }
          if (typeof token !== "number") {
            // No token: the lock is useless. Undo, and say the outcome is unknown (the undo may not arrive).
            await this.redis.eval(CAD_LUA, 1, key, secret).catch(() => undefined);
            return { outcome: "unknown", reason: "fencing INCR failed" };
          }
          grant.token = token;
        }
        grant.validityMs = Math.max(0, (grant.expiresAtUs - this.nowUs()) / 1000);
        return { outcome: "ok", grant };
      }
      if (Date.now() + this.cfg.retryDelayMs >= endWallMs) break;
      await sleepMs(this.cfg.retryDelayMs);
    }
    return timedOut
      ? { outcome: "unknown", reason: "a SET timed out: it may have taken the lock" }
      : { outcome: "fail", reason: "lock held by another client until the wait ran out" };
  }

  async release(grant: RealGrant): Promise<ReleaseResult> {
    try {
      const r = await this.redis.eval(CAD_LUA, 1, `lock:${grant.lock}`, grant.secret);
      return { outcome: "ok", released: r === 1 };
    } catch (err) {
      return { outcome: "unknown", reason: errorText(err) };
    }
  }

  async extend(grant: RealGrant, ttlMs: number): Promise<ExtendResult> {
    const sentUs = this.nowUs();
    let r: unknown;
    try {
      r = await this.redis.eval(CAPEXPIRE_LUA, 1, `lock:${grant.lock}`, grant.secret, String(ttlMs));
    } catch (err) {
      return { outcome: "unknown", reason: errorText(err) };
    }
    if (r !== 1) return { outcome: "fail", reason: "the key is no longer ours" };
    grant.ttlMs = ttlMs;
    grant.expiresAtUs = sentUs + ttlMs * 1000;
    grant.validityMs = Math.max(0, (grant.expiresAtUs - this.nowUs()) / 1000);
    return { outcome: "ok", validityMs: grant.validityMs };
  }

  holds(grant: RealGrant): boolean {
    return this.nowUs() < grant.expiresAtUs;
  }

  packages(): Record<string, string> {
    return { ioredis: packageVersion("ioredis") };
  }

  close(): void {
    this.redis.disconnect();
  }
}

/** The client process's entry to this recipe (real/child/main.ts loads this module by the recipe's `client`). */
export const createRealClient: RealClientFactory = (cfg, env) => new SetnxRecipe(cfg as SetnxConfig, env.nowUs);
