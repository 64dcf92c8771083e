import type { Fiber } from "../../sim/fiber.js";
import { suspend } from "../../sim/fiber.js";
import type { ProcessContext } from "../../sim/simulation.js";
import type { AcquireOptions, AcquireResult, ExtendResult, Grant, LockClient, ReleaseResult } from "../types.js";
import { redisCall, redisCallEach, type RedisResult } from "../../services/redis/client.js";
import type { RedisCommand } from "../../services/redis/commands.js";
import { acquired, driftMs, expirationMs, retryDelayMs } from "./validity.js";
import { UsingExtender } from "./using.js";

/**
 * The Redlock client, in two variants:
 *
 * "node-redlock" (default) — as mike-marcacci/node-redlock v4 (redlock.js) builds it,
 * which is the Redis docs' algorithm step for step:
 *   1. start = Date.now() (this client's wall clock, ctx.wallMs());
 *   2. `SET key value NX PX ttl` on every node at once, the same random value
 *      everywhere, each with a per-node timeout; wait for every node to answer or
 *      time out;
 *   3. drift = round(driftFactor·ttl) + 2; expiration = start + ttl − drift;
 *      acquired iff votes ≥ quorum and expiration > Date.now();
 *   4. validity = expiration − now;
 *   5. otherwise unlock every node (compare-and-delete) and, while retries remain,
 *      wait retryDelay ± retryJitter and try again (retryCount retries).
 *   Extend: refused if the lock has expired by Date.now(); else the same loop with
 *   compare-and-pexpire. v4 shares _lock, so every missed extension attempt unlocks
 *   every node (`return lock.unlock(function(){ ... setTimeout(attempt, ...) })`) and
 *   the caller learns of the failure only when the retries are spent; its lock object
 *   keeps the old expiration meanwhile and after (scenario redlock-extend-miss).
 *   Release: compare-and-delete on every node.
 *
 * "node-redlock-v5" — as node-redlock v5.0.0-beta.2 (src/index.ts; the v5 line, which
 * @sesamecare-oss/redlock 1.4.0 continues unchanged here) builds it:
 *   - an attempt resolves as soon as a quorum has voted for, or a quorum against
 *     (`_attemptOperation`: `votesFor.size === quorumSize` / `votesAgainst.size ===
 *     quorumSize`); the rest of the replies are not waited for. With an even node count
 *     a tie reaches neither and the attempt never resolves (faithfully: the call hangs);
 *   - acquire: no second clock read. `acquire` returns `new Lock(..., start + duration −
 *     drift)` whatever Date.now() is by then, so a lock that expired while the votes
 *     were in flight is returned to the caller, who must compare `lock.expiration` with
 *     Date.now() itself (workload.validityCheck decides whether it does);
 *   - between attempts nothing is unlocked (`_execute` only waits and retries); after the
 *     last failed attempt `acquire` releases once (`retryCount: 0`);
 *   - extend: refused if `expiration < Date.now()`, else `_execute` of the extend script
 *     with retries and no unlock; on success the new expiration is start + duration −
 *     drift, again without a clock check; on failure the lock is left as it was;
 *   - release: `_execute` of the release script, with its retries;
 *   - `using()` (designOptions.using): the lock is extended automatically
 *     `automaticExtensionThreshold` ms before it expires (using.ts); the routine learns of
 *     a failed extension through an AbortSignal (designOptions.usingCheck).
 *
 * "seed-000" — the seed's Redlock class: SETs one node after another, acquired iff
 * ≥ quorum votes and elapsed < ttl (no drift term), elapsed measured from the first
 * attempt's start (time.time()); on a majority that came too late it releases; a
 * minority is left to expire; it polls every retryDelayMs (the seed's sleep(0.01))
 * until waitMs has passed.
 *
 * What the client believes (holds()): the lock is valid while its clock reads before
 * `expiration` — node-redlock's `lock.expiration > Date.now()`. Nothing re-checks the
 * nodes, and the nodes expire keys by their own wall clocks: that gap is the debate.
 */
export const REDLOCK_VARIANTS = ["node-redlock", "node-redlock-v5", "seed-000"] as const;
export type RedlockVariant = (typeof REDLOCK_VARIANTS)[number];

/**
 * What a `using()` routine checks before it acts (node-redlock v5 only):
 *   "signal"     `signal.aborted`, as the using() example in v5's README and src/index.ts
 *                does: aborted only once an extension has failed *and* the lock's
 *                expiration has passed, i.e. after the failed extension's whole retry window;
 *   "expiration" also `lock.expiration > Date.now()`: the lock's own validity.
 */
export const USING_CHECKS = ["signal", "expiration"] as const;
export type UsingCheck = (typeof USING_CHECKS)[number];

export interface RedlockClientOptions {
  nodes: string[];
  quorum: number;
  variant: RedlockVariant;
  driftFactor: number;
  driftConstantMs: number;
  retryCount: number;
  retryDelayMs: number;
  retryJitterMs: number;
  requestTimeoutMs: number;
  /** Which clock measures elapsed time: "wall" (node-redlock reads the system clock) or "monotonic" (go-redsync's monotonic reading). */
  clock: "wall" | "monotonic";
  /** node-redlock v5: hold every lock inside `using()`, which extends it automatically. */
  using: boolean;
  /** v5's `automaticExtensionThreshold`: extend this long before the expiration, ms. */
  automaticExtensionThresholdMs: number;
  usingCheck: UsingCheck;
}

interface RedlockGrantData {
  /** On the client's chosen clock, ms: the lock is believed valid strictly before this. */
  expirationMs: number;
  /** Nodes that voted for the lock (for reports and tests). */
  votes: string[];
  /** The using() extender of this lock (node-redlock v5 with designOptions.using). */
  using?: UsingExtender;
}

/** How far ahead a signal-trusting using() lock pushes the lapse watcher's next look, ms. */
const LAPSE_RECHECK_MS = 1;

export class RedlockClient implements LockClient {
  constructor(
    private readonly ctx: ProcessContext,
    private readonly opts: RedlockClientOptions,
  ) {}

  private nowMs(): number {
    return this.opts.clock === "wall" ? this.ctx.wallMs() : this.ctx.monoMs();
  }

  /** Send one command to every node at once; wait for all answers or timeouts. */
  private *onAll(command: RedisCommand): Fiber<RedisResult[]> {
    const { ctx, opts } = this;
    return yield* suspend<RedisResult[]>((resume) => {
      const out: RedisResult[] = new Array(opts.nodes.length);
      let left = opts.nodes.length;
      redisCallEach(ctx, opts.nodes, command, opts.requestTimeoutMs, (i, r) => {
        out[i] = r;
        if (--left === 0) resume(out);
      });
    });
  }

  /**
   * v5's `_attemptOperation`: send to every node at once and resolve as soon as `quorum`
   * nodes voted for or `quorum` voted against; later replies are ignored. `out[i]` is
   * undefined for a node not heard from by then.
   */
  private *onQuorum(command: RedisCommand, isVote: (r: RedisResult) => boolean): Fiber<{ vote: "for" | "against"; results: Array<RedisResult | undefined> }> {
    const { ctx, opts } = this;
    return yield* suspend((resume) => {
      const out: Array<RedisResult | undefined> = new Array(opts.nodes.length);
      let votesFor = 0;
      let votesAgainst = 0;
      redisCallEach(ctx, opts.nodes, command, opts.requestTimeoutMs, (i, res) => {
        out[i] = res;
        if (isVote(res)) votesFor++;
        else votesAgainst++;
        // `===`, as v5 has it: the vote that makes the quorum resolves; later ones are no-ops
        // (a fiber's resume is one-shot).
        if (votesFor === opts.quorum) resume({ vote: "for", results: [...out] });
        if (votesAgainst === opts.quorum) resume({ vote: "against", results: [...out] });
      });
    });
  }

  /**
   * v5's `_execute`: attempt, and on a vote against wait retryDelay ± retryJitter and try
   * again, up to retryCount retries; nothing is unlocked in between. `waitMs` > 0 (the
   * workload's try-lock bound) also stops retrying when the next attempt would start after it.
   */
  private *executeV5(
    command: RedisCommand,
    isVote: (r: RedisResult) => boolean,
    retryCount: number,
    waitMs: number,
    op: "acquire" | "extend" | "release",
    ttlMs = 0,
  ): Fiber<{ ok: true; start: number; results: Array<RedisResult | undefined> } | { ok: false; reason: string }> {
    const { opts } = this;
    const firstStart = this.nowMs();
    for (let attempt = 1; ; attempt++) {
      const start = this.nowMs();
      const r = yield* this.onQuorum(command, isVote);
      if (r.vote === "for") return { ok: true, start, results: r.results };
      const votes = r.results.filter((x) => x !== undefined && isVote(x)).length;
      if (op !== "release") {
        const now = this.nowMs();
        this.noteMiss(op, command.key, attempt, votes, now - start, expirationMs(start, ttlMs, driftMs(ttlMs, opts.driftFactor, opts.driftConstantMs)) - now);
      }
      if (attempt > retryCount) break;
      const delay = retryDelayMs(opts.retryDelayMs, opts.retryJitterMs, this.ctx.rng.float());
      if (waitMs > 0 && this.nowMs() + delay - firstStart > waitMs) break;
      yield* this.ctx.sleep(delay);
    }
    return { ok: false, reason: "The operation was unable to achieve a quorum during its retry window." };
  }

  /** One node after another, as the seed's loop does. */
  private *onEachInTurn(command: RedisCommand): Fiber<RedisResult[]> {
    const out: RedisResult[] = [];
    for (const n of this.opts.nodes) out.push(yield* redisCall(this.ctx, n, command, this.opts.requestTimeoutMs));
    return out;
  }

  private grantFrom(
    lock: string,
    value: string,
    ttlMs: number,
    expiration: number,
    results: Array<RedisResult | undefined>,
    okReply: (r: RedisResult) => boolean,
  ): Grant {
    const now = this.nowMs();
    const validity = expiration - now;
    const data: RedlockGrantData = { expirationMs: expiration, votes: this.opts.nodes.filter((_, i) => results[i] !== undefined && okReply(results[i]!)) };
    return { lock, secret: value, ttlMs, validityMs: validity, expiresAtMonoUs: this.ctx.monoUs() + validity * 1000, data };
  }

  *acquire(lock: string, o: AcquireOptions): Fiber<AcquireResult> {
    if (this.opts.variant === "seed-000") return yield* this.acquireSeed(lock, o);
    if (this.opts.variant === "node-redlock-v5") return yield* this.acquireV5(lock, o);
    return yield* this.acquireNodeRedlock(lock, o);
  }

  /**
   * v5's `acquire`: `_execute` the acquire script; on success the lock's expiration is
   * start + duration − drift, with no look at the clock after the votes (so it may be
   * past already); on failure release once, without retries, and rethrow.
   */
  private *acquireV5(lock: string, o: AcquireOptions): Fiber<AcquireResult> {
    const value = this.ctx.rng.token();
    const isOk = (r: RedisResult) => r.ok && r.reply === "OK";
    const r = yield* this.executeV5({ cmd: "SET", key: lock, value, nx: true, pxMs: o.ttlMs }, isOk, this.opts.retryCount, o.waitMs, "acquire", o.ttlMs);
    if (!r.ok) {
      yield* this.onQuorum({ cmd: "CAD", key: lock, value }, (x) => x.ok && x.reply === 1);
      return { outcome: "fail", reason: r.reason };
    }
    const expiration = expirationMs(r.start, o.ttlMs, driftMs(o.ttlMs, this.opts.driftFactor, this.opts.driftConstantMs));
    const grant = this.grantFrom(lock, value, o.ttlMs, expiration, r.results, isOk);
    if (this.opts.using) {
      const data = grant.data as RedlockGrantData;
      data.using = new UsingExtender(this.ctx, this, grant, this.opts.automaticExtensionThresholdMs);
    }
    return { outcome: "ok", grant };
  }

  private *acquireNodeRedlock(lock: string, o: AcquireOptions): Fiber<AcquireResult> {
    const value = this.ctx.rng.token();
    const set: RedisCommand = { cmd: "SET", key: lock, value, nx: true, pxMs: o.ttlMs };
    const isOk = (r: RedisResult) => r.ok && r.reply === "OK";
    const r = yield* this.attemptLoop(set, o.ttlMs, isOk, o.waitMs, value, lock);
    if (r.ok) return { outcome: "ok", grant: this.grantFrom(lock, value, o.ttlMs, r.expiration, r.results, isOk) };
    return { outcome: "fail", reason: r.reason };
  }

  /**
   * node-redlock v4's `_lock` loop: attempt, judge by quorum and expiration, else
   * unlock everywhere and retry after a jittered delay. `waitMs` (the workload's
   * try-lock bound) also stops retrying when the next attempt would start after it.
   */
  private *attemptLoop(
    command: RedisCommand,
    ttlMs: number,
    isVote: (r: RedisResult) => boolean,
    waitMs: number,
    value: string,
    lock: string,
  ): Fiber<{ ok: true; expiration: number; results: RedisResult[] } | { ok: false; reason: string }> {
    const { opts } = this;
    const firstStart = this.nowMs();
    let last: string;
    for (let attempt = 1; ; attempt++) {
      const start = this.nowMs();
      const results = yield* this.onAll(command);
      const votes = results.filter(isVote).length;
      const expiration = expirationMs(start, ttlMs, driftMs(ttlMs, opts.driftFactor, opts.driftConstantMs));
      const now = this.nowMs();
      if (acquired(votes, opts.quorum, expiration, now)) return { ok: true, expiration, results };
      last =
        votes < opts.quorum
          ? `${votes} of ${opts.nodes.length} votes, quorum ${opts.quorum}`
          : `quorum reached but validity used up (${expiration - now} ms left)`;
      this.noteMiss(command.cmd === "SET" ? "acquire" : "extend", lock, attempt, votes, now - start, expiration - now);
      yield* this.onAll({ cmd: "CAD", key: lock, value });
      if (attempt > opts.retryCount) break;
      const delay = retryDelayMs(opts.retryDelayMs, opts.retryJitterMs, this.ctx.rng.float());
      if (waitMs > 0 && this.nowMs() + delay - firstStart > waitMs) break;
      yield* this.ctx.sleep(delay);
    }
    return { ok: false, reason: `no lock after ${opts.retryCount + 1} attempt(s): ${last}` };
  }

  private *acquireSeed(lock: string, o: AcquireOptions): Fiber<AcquireResult> {
    const value = this.ctx.rng.token();
    const isOk = (r: RedisResult) => r.ok && r.reply === "OK";
    const start = this.nowMs();
    const end = start + o.waitMs;
    let last: string;
    let attempt = 0;
    do {
      const results = yield* this.onEachInTurn({ cmd: "SET", key: lock, value, nx: true, pxMs: o.ttlMs });
      const votes = results.filter(isOk).length;
      attempt++;
      if (votes >= this.opts.quorum) {
        const elapsed = this.nowMs() - start;
        if (elapsed < o.ttlMs) return { outcome: "ok", grant: this.grantFrom(lock, value, o.ttlMs, start + o.ttlMs, results, isOk) };
        this.noteMiss("acquire", lock, attempt, votes, elapsed, o.ttlMs - elapsed);
        // "Lock expired during acquisition, release all"
        yield* this.onEachInTurn({ cmd: "CAD", key: lock, value });
        last = `quorum reached after ${elapsed} ms, not under the ${o.ttlMs} ms TTL`;
      } else {
        last = `${votes} of ${this.opts.nodes.length} votes, quorum ${this.opts.quorum}`;
        this.noteMiss("acquire", lock, attempt, votes, this.nowMs() - start, o.ttlMs - (this.nowMs() - start));
      }
      yield* this.ctx.sleep(this.opts.retryDelayMs);
    } while (this.nowMs() < end);
    return { outcome: "fail", reason: `no lock within ${o.waitMs} ms: ${last}` };
  }

  /**
   * A missed attempt, as an annotation in the history (an `info` with no invoke of its
   * own): what node-redlock would report in its error — votes, elapsed time, what was left.
   */
  private noteMiss(op: "acquire" | "extend", lock: string, attempt: number, votes: number, elapsedMs: number, validityLeftMs: number): void {
    this.ctx.record("info", "redlock-miss", lock, { op, attempt, votes, quorum: this.opts.quorum, elapsedMs, validityLeftMs });
  }

  *release(grant: Grant): Fiber<ReleaseResult> {
    const data = grant.data as RedlockGrantData;
    // using()'s `finally`: clear the extension timer, wait for an extension in flight.
    if (data.using) yield* data.using.stop();
    if (this.opts.variant === "node-redlock-v5") {
      data.expirationMs = 0;
      grant.expiresAtMonoUs = this.ctx.monoUs();
      const r = yield* this.executeV5({ cmd: "CAD", key: grant.lock, value: grant.secret }, (x) => x.ok && x.reply === 1, this.opts.retryCount, 0, "release");
      if (!r.ok) return { outcome: "unknown", reason: `release: ${r.reason}` };
      return { outcome: "ok", released: true };
    }
    // node-redlock: "immediately invalidate the lock".
    data.expirationMs = 0;
    grant.expiresAtMonoUs = this.ctx.monoUs();
    const cad: RedisCommand = { cmd: "CAD", key: grant.lock, value: grant.secret };
    const results = this.opts.variant === "seed-000" ? yield* this.onEachInTurn(cad) : yield* this.onAll(cad);
    // node-redlock 4.2.0 counts only a node that deleted the key (reply 1) as a vote and
    // rejects with LockError below a quorum, whatever the reason (keys already expired,
    // taken over, nodes unreachable): the caller cannot tell, so that is unknown.
    const votes = results.filter((r) => r.ok && r.reply === 1).length;
    if (votes < this.opts.quorum) return { outcome: "unknown", reason: `released on ${votes} node(s), quorum ${this.opts.quorum}` };
    return { outcome: "ok", released: true };
  }

  *extend(grant: Grant, ttlMs: number): Fiber<ExtendResult> {
    const data = grant.data as RedlockGrantData;
    if (data.expirationMs < this.nowMs()) return { outcome: "fail", reason: "cannot extend an already-expired lock" };
    const isOne = (r: RedisResult) => r.ok && r.reply === 1;
    const cmd: RedisCommand = { cmd: "CAPEXPIRE", key: grant.lock, value: grant.secret, ms: ttlMs };
    if (this.opts.variant === "node-redlock-v5") {
      // v5's extend: `_execute` (retries, no unlock); the replacement lock's expiration
      // is start + duration − drift, with no clock check; a failure leaves the lock as it was.
      const r5 = yield* this.executeV5(cmd, isOne, this.opts.retryCount, 0, "extend", ttlMs);
      if (!r5.ok) return { outcome: "fail", reason: r5.reason };
      const expiration = expirationMs(r5.start, ttlMs, driftMs(ttlMs, this.opts.driftFactor, this.opts.driftConstantMs));
      const g5 = this.grantFrom(grant.lock, grant.secret, ttlMs, expiration, r5.results, isOne);
      grant.ttlMs = ttlMs;
      grant.validityMs = g5.validityMs;
      grant.expiresAtMonoUs = g5.expiresAtMonoUs;
      grant.data = { ...(g5.data as RedlockGrantData), ...(data.using ? { using: data.using } : {}) };
      return { outcome: "ok", validityMs: g5.validityMs };
    }
    const r = yield* this.attemptLoop(cmd, ttlMs, isOne, 0, grant.secret, grant.lock);
    // A failed extension leaves the caller's lock as it was: node-redlock v4 (redlock.js,
    // v4.2.0) sets `lock.expiration = extension.expiration` only in the `.then` of a
    // successful _lock, and v5 (src/index.ts) sets `existing.expiration = 0` only after
    // `_execute` resolved. The keys, though, are gone: each missed attempt unlocked them.
    if (!r.ok) return { outcome: "fail", reason: r.reason };
    const g = this.grantFrom(grant.lock, grant.secret, ttlMs, r.expiration, r.results, isOne);
    grant.ttlMs = ttlMs;
    grant.validityMs = g.validityMs;
    grant.expiresAtMonoUs = g.expiresAtMonoUs;
    grant.data = g.data;
    return { outcome: "ok", validityMs: g.validityMs };
  }

  /** The lock's expiration on the client's clock, ms (0 once released). */
  expirationOf(grant: Grant): number {
    return (grant.data as RedlockGrantData).expirationMs;
  }

  /** Milliseconds on the client's chosen clock (Date.now() for node-redlock). */
  clockMs(): number {
    return this.nowMs();
  }

  holds(grant: Grant): boolean {
    const data = grant.data as RedlockGrantData;
    // A using() routine that checks only its AbortSignal trusts the lock until the signal fires.
    if (data.using && this.opts.usingCheck === "signal") {
      if (data.using.aborted) return false;
      grant.expiresAtMonoUs = Math.max(grant.expiresAtMonoUs, this.ctx.monoUs() + LAPSE_RECHECK_MS * 1000);
      return true;
    }
    if (data.using?.aborted) return false;
    const left = data.expirationMs - this.nowMs();
    if (left <= 0) return false;
    // The lapse watcher runs on the monotonic clock; keep its deadline in step with ours.
    grant.expiresAtMonoUs = Math.max(grant.expiresAtMonoUs, this.ctx.monoUs() + left * 1000);
    return true;
  }
}
