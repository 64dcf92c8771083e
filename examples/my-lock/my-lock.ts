/**
 * A user's own Redis lock, the kind a team writes and ships: SET NX PX with a random
 * token, retry until a deadline, release by compare-and-delete (a Lua script, loaded
 * with ioredis's defineCommand). It is correct as far as Redis goes — and still not safe
 * against a pause of its own process, which is what lockstep shows.
 *
 * Nothing in this file knows about lockstep: it takes an ioredis client.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
const EXTEND = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;

export interface Held {
  key: string;
  token: string;
  /** performance.now() (monotonic: a wall clock may step) before which this process believes it holds the lock. */
  validUntilMs: number;
}

interface Scripts {
  myLockRelease(key: string, token: string): Promise<number>;
  myLockExtend(key: string, token: string, ttlMs: number): Promise<number>;
}

export class MyLock {
  constructor(
    private readonly redis: Redis,
    private readonly retryMs = 25,
  ) {
    redis.defineCommand("myLockRelease", { numberOfKeys: 1, lua: RELEASE });
    redis.defineCommand("myLockExtend", { numberOfKeys: 1, lua: EXTEND });
  }

  async acquire(key: string, ttlMs: number, waitMs: number): Promise<Held | null> {
    const token = randomBytes(16).toString("hex");
    const deadline = performance.now() + waitMs;
    for (;;) {
      const started = performance.now();
      if ((await this.redis.set(key, token, "PX", ttlMs, "NX")) === "OK") return { key, token, validUntilMs: started + ttlMs };
      if (performance.now() + this.retryMs > deadline) return null;
      await new Promise((r) => setTimeout(r, this.retryMs));
    }
  }

  async release(h: Held): Promise<boolean> {
    const n = await this.scripts().myLockRelease(h.key, h.token);
    return n === 1;
  }

  /** Renew for ttlMs if the key is still ours; the new validity counts from before the request. */
  async extend(h: Held, ttlMs: number): Promise<boolean> {
    const started = performance.now();
    if ((await this.scripts().myLockExtend(h.key, h.token, ttlMs)) !== 1) return false;
    h.validUntilMs = started + ttlMs;
    return true;
  }

  private scripts(): Scripts {
    return this.redis as unknown as Scripts;
  }
}
