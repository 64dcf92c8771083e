// Redlock with the real `redlock` package (node-redlock v4, 4.2.0) over one ioredis
// connection per redis-server. The library does everything: the same random value on all
// nodes at once (its Lua lock script), quorum floor(N/2)+1, expiration = start + ttl −
// (round(driftFactor·ttl) + 2) on Date.now(), unlock everywhere and retry after
// retryDelay ± retryJitter, extend through the same loop. This file only maps its promises
// onto the workload's outcomes:
//   acquire: resolved → ok; LockError (retries spent) → fail, as the simulator's model says
//            (the library unlocked every node after each missed attempt); anything else → unknown.
//   release: resolved (a quorum deleted our key) → ok, released; LockError with no client
//            error meanwhile (every node answered, fewer than a quorum still had our key) →
//            ok, not released; with client errors (timeouts) → unknown.
//   extend:  resolved → ok; LockError → fail (the lock object keeps its old expiration, as
//            v4 does); anything else → unknown.
//   holds:   lock.expiration > Date.now(), the library's own test.
// node-redlock v4 has no wait bound: workload.waitMs is not applied (it retries retryCount times).
import { createRequire } from "node:module";
import type { Redis } from "ioredis";
import type { RedlockRecipeConfig } from "./real-plan.js";
import { connectReady, ioredisConnection } from "../real-ioredis.js";
import { errorText, type RealGrant, type RealLockClient, type RealClientFactory } from "../real-client.js";
import type { AcquireResult, ExtendResult, ReleaseResult } from "../types.js";
import { packageVersion } from "../real-packages.js";

/** The slice of node-redlock v4's API used here (the package ships no types). */
interface RedlockV4Lock {
  value: string;
  expiration: number;
}
interface RedlockV4 {
  lock(resource: string, ttlMs: number): Promise<RedlockV4Lock>;
  unlock(lock: RedlockV4Lock): Promise<void>;
  extend(lock: RedlockV4Lock, ttlMs: number): Promise<RedlockV4Lock>;
  on(event: "clientError", fn: (err: unknown) => void): void;
}
type RedlockV4Ctor = (new (clients: Redis[], options: Record<string, number>) => RedlockV4) & { LockError: new (...a: unknown[]) => Error };

const require = createRequire(import.meta.url);

type RedlockConfig = RedlockRecipeConfig;

export class RedlockRecipe implements RealLockClient {
  private readonly clients: Redis[];
  private readonly redlock: RedlockV4;
  private readonly LockError: new (...a: unknown[]) => Error;
  private clientErrors = 0;

  constructor(
    cfg: RedlockConfig,
    private readonly nowUs: () => number,
  ) {
    const Redlock = require("redlock") as RedlockV4Ctor;
    this.LockError = Redlock.LockError;
    this.clients = cfg.redis.map((e) => ioredisConnection(e, cfg.requestTimeoutMs));
    this.redlock = new Redlock(this.clients, {
      driftFactor: cfg.driftFactor,
      retryCount: cfg.retryCount,
      retryDelay: cfg.retryDelayMs,
      retryJitter: cfg.retryJitterMs,
    });
    this.redlock.on("clientError", () => {
      this.clientErrors++;
    });
  }

  async connect(): Promise<void> {
    await Promise.all(this.clients.map((c) => connectReady(c)));
  }

  /** Run time at which `lock.expiration` (Date.now() terms) falls, read now. */
  private expiresAtUs(l: RedlockV4Lock): number {
    return this.nowUs() + (l.expiration - Date.now()) * 1000;
  }

  async acquire(lock: string, o: { ttlMs: number; waitMs: number }): Promise<AcquireResult<RealGrant>> {
    try {
      const l = await this.redlock.lock(lock, o.ttlMs);
      const validityMs = l.expiration - Date.now();
      return { outcome: "ok", grant: { lock, secret: l.value, ttlMs: o.ttlMs, validityMs, expiresAtUs: this.expiresAtUs(l), data: l } };
    } catch (err) {
      if (err instanceof this.LockError) return { outcome: "fail", reason: errorText(err) };
      return { outcome: "unknown", reason: errorText(err) };
    }
  }

  async release(grant: RealGrant): Promise<ReleaseResult> {
    const errorsBefore = this.clientErrors;
    try {
      await this.redlock.unlock(grant.data as RedlockV4Lock);
      return { outcome: "ok", released: true };
    } catch (err) {
      if (err instanceof this.LockError && this.clientErrors === errorsBefore) return { outcome: "ok", released: false };
      return { outcome: "unknown", reason: errorText(err) };
    } finally {
      grant.expiresAtUs = Math.min(grant.expiresAtUs, this.nowUs()); // v4: "immediately invalidate the lock"
    }
  }

  async extend(grant: RealGrant, ttlMs: number): Promise<ExtendResult> {
    const l = grant.data as RedlockV4Lock;
    try {
      await this.redlock.extend(l, ttlMs);
    } catch (err) {
      if (err instanceof this.LockError) return { outcome: "fail", reason: errorText(err) };
      return { outcome: "unknown", reason: errorText(err) };
    }
    grant.ttlMs = ttlMs;
    grant.validityMs = l.expiration - Date.now();
    grant.expiresAtUs = this.expiresAtUs(l);
    return { outcome: "ok", validityMs: grant.validityMs };
  }

  holds(grant: RealGrant): boolean {
    return (grant.data as RedlockV4Lock).expiration > Date.now();
  }

  packages(): Record<string, string> {
    return { ioredis: packageVersion("ioredis"), redlock: packageVersion("redlock") };
  }

  close(): void {
    for (const c of this.clients) c.disconnect();
  }
}

/** The client process's entry to this recipe (real/child/main.ts loads this module by the recipe's `client`). */
export const createRealClient: RealClientFactory = (cfg, env) => new RedlockRecipe(cfg as RedlockConfig, env.nowUs);
