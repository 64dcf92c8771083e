import type { Fiber } from "../../sim/fiber.js";
import type { ProcessContext, RpcResult } from "../../sim/simulation.js";
import type { AcquireOptions, AcquireResult, ExtendResult, Grant, LockClient, ReleaseResult } from "../types.js";
import { toRedisResult, type RedisConnection, type RedisResult } from "../../services/redis/client.js";
import type { RedisCommand } from "../../services/redis/commands.js";

/**
 * The seeds' `RedisLock` (000 approach 1, 001 code example): a random token per
 * acquisition, `SET lock:<name> token NX PX ttl` polled every `retryDelayMs` until
 * `waitMs` has passed, release by compare-and-delete, extend by compare-and-pexpire.
 * With `fencing`, a successful SET is followed by `INCR fence:<name>` and the counter
 * is the fencing token (seed 001) — not atomic with the SET, as in the seed.
 *
 * Timing: the wait loop runs on the wall clock (`time.time()` in the seed). The client
 * believes it holds the lock for ttlMs from the moment it *sent* the winning SET, on
 * its monotonic clock — the most generous reading a careful client can make.
 *
 * `release` picks the release recipe (docs/redlock.md, "Release recipes"): the seed's
 * compare-and-delete, a plain `DEL` (which can remove a later holder's key), or
 * redis-lock 1.0.0's `DEL` guarded only by the client's own wall clock.
 */
export const RELEASE_RECIPES = ["compare-and-delete", "del", "del-if-unexpired"] as const;
export type ReleaseRecipe = (typeof RELEASE_RECIPES)[number];

export interface SetnxClientOptions {
  /** The connection to Redis (one node, or Sentinel's current primary); it owns the socket timeout. */
  conn: RedisConnection;
  /** Pause between SET NX attempts, ms (the seed's `time.sleep(0.01)`). */
  retryDelayMs: number;
  fencing: boolean;
  /** How release removes the key; compare-and-delete unless a design says otherwise. */
  release?: ReleaseRecipe;
  /**
   * After a SET that took the lock, WAIT for this many replicas to acknowledge it (0: no
   * WAIT); fewer in time, and the SET is undone and the poll goes on.
   */
  waitReplicas?: number;
  /** WAIT's own timeout, ms. */
  waitTimeoutMs?: number;
}

/** What del-if-unexpired keeps per grant: redis-lock's `lockTimeoutValue`, a wall-clock ms deadline. */
interface WallDeadline {
  expiresAtWallMs: number;
}

export class SetnxLockClient implements LockClient {
  constructor(
    private readonly ctx: ProcessContext,
    private readonly opts: SetnxClientOptions,
  ) {}

  *acquire(lock: string, o: AcquireOptions): Fiber<AcquireResult> {
    const key = `lock:${lock}`;
    const secret = this.ctx.rng.token();
    const endWallMs = this.ctx.wallMs() + o.waitMs;
    let timedOut = false;
    // One command for every attempt: a command is never changed once sent (the server
    // only reads it), so the polls share it rather than build one each.
    const set: RedisCommand = { cmd: "SET", key, value: secret, nx: true, pxMs: o.ttlMs };
    for (let attempt = 0; ; attempt++) {
      const sentMonoUs = this.ctx.monoUs();
      // redis-lock 1.0.0: lockTimeoutValue = Date.now() + timeout + 1, read before the SET.
      const expiresAtWallMs = this.ctx.wallMs() + o.ttlMs + 1;
      const conn = this.opts.conn;
      // The same call either way; a direct connection's wait spares a fiber object per poll.
      const r: RedisResult = conn.wait !== undefined ? toRedisResult((yield conn.wait(set)) as RpcResult) : yield* conn.call(set);
      const won = r.ok && r.reply === "OK";
      if (won && (yield* this.replicated(key, secret))) {
        const deadline: WallDeadline = { expiresAtWallMs };
        const grant: Grant = {
          lock,
          secret,
          ttlMs: o.ttlMs,
          validityMs: 0,
          expiresAtMonoUs: sentMonoUs + o.ttlMs * 1000,
          data: deadline,
        };
        if (this.opts.fencing) {
          const t = yield* this.opts.conn.call({ cmd: "INCR", key: `fence:${lock}` });
          if (!t.ok || typeof t.reply !== "number") {
            // No token: we cannot use the lock safely. Undo, and say the outcome is unknown
            // (the undo itself may not have arrived).
            yield* this.opts.conn.call({ cmd: "CAD", key, value: secret });
            return { outcome: "unknown", reason: "fencing INCR failed" };
          }
          grant.token = t.reply;
        }
        grant.validityMs = Math.max(0, (grant.expiresAtMonoUs - this.ctx.monoUs()) / 1000);
        return { outcome: "ok", grant };
      }
      // A SET that timed out, or one undone for want of replicas (the undo may be lost): either may hold the key.
      if (!r.ok || won) timedOut = true;
      if (this.ctx.wallMs() + this.opts.retryDelayMs >= endWallMs) break;
      yield this.ctx.sleepWait(this.opts.retryDelayMs);
    }
    return timedOut
      ? { outcome: "unknown", reason: "a SET timed out: it may have taken the lock" }
      : { outcome: "fail", reason: "lock held by another client until the wait ran out" };
  }

  /** With waitReplicas: did enough replicas acknowledge the SET? If not, undo it (the undo may be lost too). */
  private *replicated(key: string, secret: string): Fiber<boolean> {
    const n = this.opts.waitReplicas ?? 0;
    if (n === 0) return true;
    const w = yield* this.opts.conn.call({ cmd: "WAIT", numReplicas: n, timeoutMs: this.opts.waitTimeoutMs ?? 50 });
    if (w.ok && typeof w.reply === "number" && w.reply >= n) return true;
    yield* this.opts.conn.call({ cmd: "CAD", key, value: secret });
    return false;
  }

  *release(grant: Grant): Fiber<ReleaseResult> {
    const key = `lock:${grant.lock}`;
    const recipe = this.opts.release ?? "compare-and-delete";
    if (recipe === "del-if-unexpired" && (grant.data as WallDeadline).expiresAtWallMs <= this.ctx.wallMs()) {
      // redis-lock: `if (lockTimeoutValue > Date.now()) del` — past it, release sends nothing.
      return { outcome: "ok", released: false };
    }
    const r = yield* this.opts.conn.call(recipe === "compare-and-delete" ? { cmd: "CAD", key, value: grant.secret } : { cmd: "DEL", key });
    if (!r.ok) return { outcome: "unknown", reason: "timeout" };
    return { outcome: "ok", released: r.reply === 1 };
  }

  *extend(grant: Grant, ttlMs: number): Fiber<ExtendResult> {
    const sentMonoUs = this.ctx.monoUs();
    const expiresAtWallMs = this.ctx.wallMs() + ttlMs + 1;
    const r = yield* this.opts.conn.call({ cmd: "CAPEXPIRE", key: `lock:${grant.lock}`, value: grant.secret, ms: ttlMs });
    if (!r.ok) return { outcome: "unknown", reason: "timeout" };
    if (r.reply !== 1) return { outcome: "fail", reason: "the key is no longer ours" };
    grant.ttlMs = ttlMs;
    (grant.data as WallDeadline).expiresAtWallMs = expiresAtWallMs;
    grant.expiresAtMonoUs = sentMonoUs + ttlMs * 1000;
    grant.validityMs = Math.max(0, (grant.expiresAtMonoUs - this.ctx.monoUs()) / 1000);
    return { outcome: "ok", validityMs: grant.validityMs };
  }

  holds(grant: Grant): boolean {
    return this.ctx.monoUs() < grant.expiresAtMonoUs;
  }
}
