import type { Fiber } from "../sim/fiber.js";
import type { ProcessContext, Simulation } from "../sim/simulation.js";
import type { ClientSpec, WorkloadSpec } from "../scenarios/schema.js";
import type { Grant, LockClient } from "../designs/types.js";
import { RESOURCE_ID } from "../services/storage/resource.js";
import { drawWorkMs, type WorkTime } from "../sim/work-time.js";
import type { Rng } from "../sim/rng.js";

/**
 * The client workload: acquire, read-modify-write the lock's counter on the storage
 * node, release, think, repeat. Every step is recorded as invoke + ok/fail/info.
 *
 * The client believes it holds the lock from acquire-ok until it invokes release or
 * its library says the grant has lapsed by its own clock (recorded as a `lapse`
 * annotation at the true time its monotonic clock passes grant.expiresAtMonoUs, even
 * while it is paused — see watchLapse). It checks
 * its belief once, before the critical section — as real code does — so a pause
 * between that check and the write is exactly Kleppmann's unsafe window
 * (`validityCheck` moves or drops the check).
 *
 * A library whose holds() is its belief (grant.beliefFromHolds) is asked it whenever the
 * belief matters: at the lapse watch, and just before another client's grant of the same
 * lock is recorded, so a belief that ended between two polls is never counted as
 * overlapping the next holder's (see Beliefs).
 */
export interface WorkloadRun {
  spec: WorkloadSpec;
  client: ClientSpec;
  /** True end of the run in the client's monotonic terms: no new acquisitions after it. */
  endMonoUs: number;
}

export function* clientLoop(ctx: ProcessContext, locks: LockClient, run: WorkloadRun): Fiber<void> {
  const { spec, client } = run;
  const workTime = client.workMs ?? spec.workMs;
  // Work times are drawn from a stream of their own, forked by name (and incarnation, so a
  // restarted client does not repeat its draws): the client's other dice (lock pick, think
  // jitter) fall as they did before, and a number or a fixed draw takes nothing from it.
  const work: Work = { time: workTime, rng: ctx.rng.fork(`work-time/${ctx.proc.incarnation}`) };
  if (client.startMs > 0) yield* ctx.sleep(client.startMs);
  let n = 0;
  while (ctx.monoUs() < run.endMonoUs && (client.opsMax === undefined || n < client.opsMax)) {
    n++;
    const lock = spec.locks.length === 1 ? spec.locks[0]! : ctx.rng.pick(spec.locks);
    ctx.record("invoke", "acquire", lock, { ttlMs: spec.ttlMs, waitMs: spec.waitMs });
    const r = yield* locks.acquire(lock, { ttlMs: spec.ttlMs, waitMs: spec.waitMs });
    if (r.outcome === "ok") {
      // Unique across restarts: a restarted client starts counting again.
      const grantId = ctx.proc.incarnation === 0 ? `${ctx.id}#${n}` : `${ctx.id}.${ctx.proc.incarnation}#${n}`;
      const g = r.grant;
      beliefsOf(ctx.sim).settle(lock);
      ctx.record("ok", "acquire", lock, {
        grantId,
        ...(g.token !== undefined ? { token: g.token } : {}),
        ...(g.beliefFromHolds !== "unreported" ? { validityMs: round3(g.validityMs) } : {}),
        ttlMs: g.ttlMs,
      });
      const held: Belief = { ctx, locks, g, grantId, incarnation: ctx.proc.incarnation, released: false, lapsed: false };
      const watch = watchLapse(held);
      if (spec.validityCheck === "none" || locks.holds(g)) {
        yield* criticalSection(ctx, locks, spec, work, g, grantId);
      }
      ctx.record("invoke", "release", lock, { grantId });
      held.released = true;
      watch.b = undefined;
      const rel = yield* locks.release(g);
      if (rel.outcome === "ok") ctx.record("ok", "release", lock, { released: rel.released });
      else ctx.record("info", "release", lock, { reason: rel.reason });
    } else if (r.outcome === "fail") {
      ctx.record("fail", "acquire", lock, { reason: r.reason });
    } else {
      ctx.record("info", "acquire", lock, { reason: r.reason });
    }
    const thinkMs = spec.thinkMs + (spec.thinkJitterMs > 0 ? ctx.rng.int(0, spec.thinkJitterMs) : 0);
    if (thinkMs > 0) yield* ctx.sleep(thinkMs);
  }
}

interface Work {
  time: WorkTime;
  rng: Rng;
}

function* criticalSection(ctx: ProcessContext, locks: LockClient, spec: WorkloadSpec, work: Work, g: Grant, grantId: string): Fiber<void> {
  const lock = g.lock;
  const tok = g.token !== undefined ? { token: g.token } : {};
  // The owner check sends the grant's random value to the storage (kept out of the history).
  const owner = spec.ownerCheck ? { owner: g.secret } : {};
  ctx.record("invoke", "read", lock, { grantId, ...tok });
  const rd = yield* ctx.call(RESOURCE_ID, { type: "resource-read", lock, grantId, ...tok, ...owner }, spec.resourceTimeoutMs);
  if (!rd.ok) {
    ctx.record("info", "read", lock, { reason: "timeout" });
    return;
  }
  const counter = rd.reply.counter as number;
  ctx.record("ok", "read", lock, { counter });
  const workMs = drawWorkMs(work.time, () => work.rng.float());
  if (!(yield* workRenewing(ctx, locks, spec, g, grantId, workMs))) return;
  if (spec.extendTtlMs > 0 && !(yield* extendRecorded(ctx, locks, g, grantId, spec.extendTtlMs))) return;
  if (spec.validityCheck === "before-read-and-write" && !locks.holds(g)) {
    ctx.record("info", "write-skipped", lock, { grantId, reason: "the library no longer holds the lock" });
    return;
  }
  ctx.record("invoke", "write", lock, { grantId, ...tok, counter: counter + 1 });
  const wr = yield* ctx.call(RESOURCE_ID, { type: "resource-write", lock, grantId, ...tok, ...owner, counter: counter + 1 }, spec.resourceTimeoutMs);
  if (!wr.ok) ctx.record("info", "write", lock, { reason: "timeout" });
  else if (wr.reply.type === "resource-write-ok") ctx.record("ok", "write", lock, {});
  else ctx.record("fail", "write", lock, { reason: wr.reply.reason });
}

/**
 * The work between read and write; with `renewEveryMs`, slept in slices with a renewal
 * (extend by the grant's TTL) after each full slice. False when a renewal was refused or
 * unanswered: the holder has lost the lock and stops.
 */
function* workRenewing(ctx: ProcessContext, locks: LockClient, spec: WorkloadSpec, g: Grant, grantId: string, workMs: number): Fiber<boolean> {
  let leftMs = workMs;
  while (spec.renewEveryMs > 0 && leftMs > spec.renewEveryMs) {
    yield* ctx.sleep(spec.renewEveryMs);
    leftMs -= spec.renewEveryMs;
    if (!(yield* extendRecorded(ctx, locks, g, grantId, spec.ttlMs))) return false;
  }
  if (leftMs > 0) yield* ctx.sleep(leftMs);
  return true;
}

/** One extend, recorded as invoke + ok/fail/info; false when it did not succeed (the holder stops). */
function* extendRecorded(ctx: ProcessContext, locks: LockClient, g: Grant, grantId: string, ttlMs: number): Fiber<boolean> {
  ctx.record("invoke", "extend", g.lock, { grantId, ttlMs });
  const ex = yield* locks.extend(g, ttlMs);
  if (ex.outcome !== "ok") {
    ctx.record(ex.outcome === "fail" ? "fail" : "info", "extend", g.lock, { reason: ex.reason });
    return false;
  }
  ctx.record("ok", "extend", g.lock, g.beliefFromHolds !== "unreported" ? { validityMs: round3(ex.validityMs) } : {});
  return true;
}

const LAPSE_RECHECK_US_MIN = 1000;

/** One grant's belief, while the workload may still note its lapse. */
interface Belief {
  ctx: ProcessContext;
  locks: LockClient;
  g: Grant;
  grantId: string;
  incarnation: number;
  released: boolean;
  lapsed: boolean;
}

/** Whether the belief can still lapse: not released, not noted, its process not crashed or restarted since. */
function open(b: Belief): boolean {
  return !b.released && !b.lapsed && b.ctx.proc.incarnation === b.incarnation && b.ctx.proc.state !== "crashed";
}

function lapse(b: Belief): void {
  b.lapsed = true;
  b.ctx.record("info", "lapse", b.g.lock, { grantId: b.grantId });
}

/**
 * The open beliefs judged by a library's holds(), per lock, for one simulation. A poll
 * finds the end of such a belief only to within its period; asking every one of them
 * just before another grant of the lock is recorded puts each ended belief's lapse
 * before that grant, as it happened. Sets iterate in insertion order: deterministic.
 */
class Beliefs {
  private readonly byLock = new Map<string, Set<Belief>>();

  add(b: Belief): void {
    const set = this.byLock.get(b.g.lock) ?? new Set<Belief>();
    set.add(b);
    this.byLock.set(b.g.lock, set);
  }

  /** Note the lapse of every open belief of `lock` its library no longer holds; forget the closed ones. */
  settle(lock: string): void {
    const set = this.byLock.get(lock);
    if (!set) return;
    for (const b of set) {
      if (open(b) && !b.locks.holds(b.g)) lapse(b);
      if (!open(b)) set.delete(b);
    }
  }
}

const BELIEFS = new WeakMap<Simulation, Beliefs>();

function beliefsOf(sim: Simulation): Beliefs {
  let b = BELIEFS.get(sim);
  if (!b) BELIEFS.set(sim, (b = new Beliefs()));
  return b;
}

/**
 * Record a `lapse` when the library's own clock says the grant expired before release.
 *
 * The note is the simulator's observation of the client's monotonic clock passing
 * grant.expiresAtMonoUs, so it is taken at that true time even while the client is
 * paused (its clocks run on during a pause): it is scheduled on the simulation's queue
 * directly rather than as a process timer, which a pause would hold back until wake-up
 * and so make a client that does nothing after waking look like a holder for the whole
 * pause. The library's `holds()` is a pure query of its state, which nothing changes
 * while the process is paused. A crash or restart of the client drops the watch. A
 * belief from holds() is also asked before other grants of its lock (Beliefs).
 */
function watchLapse(b: Belief): LapseWatch {
  if (b.g.beliefFromHolds !== undefined) beliefsOf(b.ctx.sim).add(b);
  const w: LapseWatch = { b };
  armLapse(w, b, 0);
  return w;
}

/**
 * What the queue holds for a lapse watch: the belief until its release, then nothing.
 * A watch waits out the grant's whole validity (a session timeout), long after most
 * holds end: holding the belief to the end would keep every recent grant alive.
 */
interface LapseWatch {
  b: Belief | undefined;
}

function armLapse(w: LapseWatch, b: Belief, delayUsMin: number): void {
  const delayUs = Math.max(delayUsMin, b.g.expiresAtMonoUs - b.ctx.monoUs());
  b.ctx.sim.scheduleEvent(b.ctx.sim.nowUs + b.ctx.proc.mono.trueDurationFor(delayUs), lapseDue, w);
}

function lapseDue(w: LapseWatch): void {
  const b = w.b;
  if (b === undefined || !open(b)) return;
  // Extended meanwhile, or a library that keeps believing past expiresAtMonoUs (a
  // session still alive): look again later rather than spinning at one instant.
  if (b.locks.holds(b.g)) return armLapse(w, b, LAPSE_RECHECK_US_MIN);
  lapse(b);
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
