/**
 * liveness, judged per wait as the history streams (the batch checker, liveness.ts,
 * feeds it the whole history, so the two forms are one).
 *
 * 1. Waits. A wait is one client's run of acquire attempts on one lock, up to its
 *    acquire-ok (or until it stops trying or crashes). It fails when it contains a stretch
 *    longer than the bound (ctx.livenessBoundMs, default 2 × TTL) in which the lock was
 *    *covered* by nothing: no fault, and no live holder. Covered:
 *    - from a fault's start to its end plus a retry's slack (a quarter TTL: waiters
 *      poll); a clock step or rate change, one TTL and the slack after it (a lease may
 *      run a TTL longer by the stepped clock). A lease or session a fault left behind is
 *      covered by its holder (below), not by the fault;
 *    - a hold, from its acquire-ok to its release invoke, its `lapse` note, or its
 *      crash plus one TTL (the server keeps a crashed holder's lease), each plus the
 *      slack; where the history records no beliefs (ctx.holdsEndAtLease) a hold ends
 *      at its lease at the latest (acquire-ok or extend-ok plus TTL), or its release;
 *    - an acquire or release that got no answer, from its invoke to its info plus one
 *      TTL and the slack: it may have set (or kept) a lease nobody knows of.
 *    Each wait is judged on its own span, whatever happens later in the run. A holder
 *    that holds longer than the bound while someone waits (extending) is no failure of
 *    the lock: it is reported as a long hold.
 * 2. Crashed holders. A lock held by a client that crashed must be granted to another
 *    client within its TTL (plus the slack) if someone is waiting, unless a fault is
 *    active meanwhile.
 * Held: per lock its live holds, the end of the last cover, the waits in progress; the
 * crashed holders whose deadline has not passed.
 */
import { NEMESIS, type HistoryEvent } from "../sim/history.js";
import { Pairer } from "./pairs.js";
import type { CheckContext, CheckResult, OnlineChecker } from "./types.js";
import { livenessResult, type LongHold, type SlowWait, type WaitVerdicts } from "./liveness-verdict.js";
import { CrashedHolders, grantIdOf, ttlMsOf } from "./liveness-crashed.js";
import { applyFault, losesState, movesCalmOnly } from "./fault-semantics.js";

/** Waiters poll: after a lease runs out they notice at their next retry, a few percent of the TTL for common clients. */
export const RETRY_SLACK_FRACTION = 0.25;

interface Wait {
  lock: string;
  client: string;
  startUs: number;
  longestUs: number;
  longestFromUs: number;
  /** A grant of the lock to anyone after the wait began. */
  served: boolean;
  /** The last attempt's answer when not a grant: the wait ends there if no attempt follows. */
  answered?: Snapshot;
  crash?: Snapshot;
}
type Snapshot = { atUs: number; longestUs: number; longestFromUs: number };

interface LiveHold {
  client: string;
  grantId?: string;
  fromUs: number;
  /** Infinity while the holder believes it holds; else the end of its lease (lease mode). */
  endUs: number;
  extends: number;
  waiters: Set<string>;
}

interface LockCover {
  holds: Map<string, LiveHold>;
  /** The end of the covers already closed (holds, unanswered ops). */
  pastEndUs: number;
  waits: Set<Wait>;
}

export class LivenessJudge implements OnlineChecker {
  private readonly boundUs: number;
  private readonly ttlUs: number;
  private readonly slackUs: number;
  private readonly faultTailUs: number;
  private lastUs = 0;
  private readonly activeFaults = new Map<string, number>();
  private faultActiveSinceUs: number | undefined;
  private faultEndUs = -Infinity;
  private readonly locks = new Map<string, LockCover>();
  private readonly waits = new Map<string, Wait>();
  private readonly clients = new Set<string>();
  private readonly verdicts: Required<WaitVerdicts> = { slow: [], slowTotal: 0, judged: 0, unjudged: 0, unserved: [], unservedTotal: 0 };
  private readonly longHolds: { list: LongHold[]; total: number } = { list: [], total: 0 };
  private readonly judgedWaits: Array<{ wait: Wait; untilUs: number; outcome: SlowWait["outcome"]; snap: Snapshot }> = [];
  private readonly crashed: CrashedHolders;
  private readonly pairer = new Pairer(
    (invoke, complete) => this.onPair(invoke, complete),
    // An acquire still open at the history's end is its wait going on, not a lease set unseen.
    (invoke) => void (this.finishing || this.onUnanswered(invoke, undefined)),
  );
  private finishing = false;

  constructor(
    private readonly ctx: CheckContext,
    private readonly ttlMs: number,
    private readonly boundMs: number,
    private readonly tick: (n?: number) => void = () => {},
  ) {
    this.boundUs = boundMs * 1000;
    this.ttlUs = ttlMs * 1000 * (1 + (ctx.clockDriftPpmMax ?? 0) / 1e6);
    this.slackUs = ttlMs * 1000 * RETRY_SLACK_FRACTION;
    this.faultTailUs = this.slackUs;
    this.crashed = new CrashedHolders(ctx, ttlMs);
  }

  push(e: HistoryEvent): void {
    this.tick();
    this.lastUs = e.timeUs;
    this.crashed.settle(e.timeUs);
    if (e.type === "invoke" && e.process !== NEMESIS) this.clients.add(e.process);
    if (e.process === NEMESIS) this.fault(e);
    else if (e.type === "invoke" && e.f === "acquire") this.attempt(e);
    else if (e.type === "invoke" && e.f === "release") this.closeHold(e.lock ?? "lock", e.process, e.timeUs + this.slackUs);
    else if (e.f === "lapse" && e.type !== "invoke") this.closeHold(e.lock ?? "lock", e.process, e.timeUs + this.slackUs);
    this.crashed.push(e, this.faultActive());
    this.pairer.push(e);
  }

  result(): CheckResult {
    this.finishing = true;
    this.pairer.finish();
    this.crashed.finish(this.lastUs);
    for (const w of [...this.waits.values()]) this.endWait(w, this.lastUs, "still-waiting");
    for (const [lock, c] of this.locks) for (const h of c.holds.values()) this.holdEnded(lock, h, Math.min(h.endUs, this.lastUs));
    for (const j of this.judgedWaits) this.judge(j.wait, j.untilUs, j.outcome, j.snap);
    const unhealed = this.faultActive();
    return livenessResult(this.verdicts, this.crashed.verdict(), unhealed, this.boundMs, this.ttlMs, this.longHolds);
  }

  private faultActive(): boolean {
    for (const n of this.activeFaults.values()) if (n > 0) return true;
    return false;
  }

  private lockOf(lock: string): LockCover {
    let c = this.locks.get(lock);
    if (!c) this.locks.set(lock, (c = { holds: new Map(), pastEndUs: -Infinity, waits: new Set() }));
    return c;
  }

  /** From when `lock` has been covered by nothing (Infinity: covered now). */
  private uncoveredFrom(c: LockCover): number {
    if (this.faultActive()) return Infinity;
    let from = Math.max(c.pastEndUs, this.faultEndUs);
    for (const h of c.holds.values()) {
      this.tick();
      from = Math.max(from, h.endUs);
    }
    return from;
  }

  /** The wait's current stretch ends at `atUs` (a cover begins, or the wait ends). */
  private cut(w: Wait, c: LockCover, atUs: number): void {
    this.tick();
    const fromUs = Math.max(w.startUs, this.uncoveredFrom(c));
    if (atUs - fromUs > w.longestUs) [w.longestUs, w.longestFromUs] = [atUs - fromUs, fromUs];
  }

  private cutAll(c: LockCover, atUs: number): void {
    for (const w of c.waits) this.cut(w, c, atUs);
  }

  /** Faults: client crashes end waits and holds; the others cover every lock while active and one TTL after. */
  private fault(e: HistoryEvent): void {
    const v = (e.value ?? {}) as { phase?: unknown; targets?: unknown };
    if (v.phase === "skipped") return;
    const targets = Array.isArray(v.targets) ? v.targets.filter((t): t is string => typeof t === "string") : [];
    if (losesState(e.f) && targets.length > 0 && targets.every((t) => this.clients.has(t))) {
      if (v.phase !== "end") for (const t of targets) this.clientCrashed(t, e.timeUs);
      return;
    }
    const before = this.faultActive();
    if (!before) for (const c of this.locks.values()) this.cutAll(c, e.timeUs);
    // A clock's step or rate change acts at one instant (never healed): it covers one TTL after.
    if (movesCalmOnly(e.f)) this.faultEndUs = Math.max(this.faultEndUs, e.timeUs + this.ttlUs + this.slackUs);
    else applyFault(this.activeFaults, e.f, v.phase);
    const after = this.faultActive();
    if (!before && after) this.faultActiveSinceUs = e.timeUs;
    if (before && !after) this.faultEndUs = Math.max(this.faultEndUs, e.timeUs + this.faultTailUs);
    this.crashed.faultChanged(e.timeUs, before, after);
  }

  private attempt(e: HistoryEvent): void {
    const lock = e.lock ?? "lock";
    const key = `${lock}\u0000${e.process}`;
    for (const h of this.lockOf(lock).holds.values()) if (h.client !== e.process) h.waiters.add(e.process);
    const w = this.waits.get(key);
    if (w) {
      w.answered = undefined;
      return;
    }
    const wait: Wait = { lock, client: e.process, startUs: e.timeUs, longestUs: 0, longestFromUs: e.timeUs, served: false };
    const c = this.lockOf(lock);
    c.waits.add(wait);
    this.waits.set(key, wait);
  }

  private onPair(invoke: HistoryEvent, complete: HistoryEvent): void {
    if (invoke.f === "release" && complete.type === "info") this.onUnanswered(invoke, complete);
    if (invoke.f === "extend" && complete.type === "ok") this.extended(invoke, complete);
    if (invoke.f !== "acquire") return;
    const lock = invoke.lock ?? "lock";
    const w = this.waits.get(`${lock}\u0000${invoke.process}`);
    if (complete.type === "info") this.onUnanswered(invoke, complete);
    if (complete.type !== "ok") {
      if (w) w.answered = this.snapshot(w, complete.timeUs);
      return;
    }
    if (w) this.endWait(w, complete.timeUs, "granted");
    this.granted(lock, invoke, complete);
  }

  /** A grant: its hold covers the lock from now; every wait's stretch ends here. */
  private granted(lock: string, invoke: HistoryEvent, complete: HistoryEvent): void {
    const c = this.lockOf(lock);
    this.cutAll(c, complete.timeUs);
    for (const w of c.waits) if (complete.timeUs > w.startUs) w.served = true;
    this.closeHold(lock, invoke.process, complete.timeUs);
    const grantId = grantIdOf({ complete });
    const ttlMs = ttlMsOf({ invoke, complete }) ?? this.ttlMs;
    const endUs = this.ctx.holdsEndAtLease ? complete.timeUs + this.leaseUs(ttlMs) : Infinity;
    const waiters = new Set([...c.waits].filter((w) => w.answered === undefined && w.client !== invoke.process).map((w) => w.client));
    c.holds.set(invoke.process, { client: invoke.process, ...(grantId ? { grantId } : {}), fromUs: complete.timeUs, endUs, extends: 0, waiters });
    this.crashed.granted(lock, invoke.process, complete.timeUs, grantId, ttlMsOf({ invoke, complete }));
  }

  private leaseUs(ttlMs: number): number {
    return ttlMs * 1000 * (1 + (this.ctx.clockDriftPpmMax ?? 0) / 1e6) + this.slackUs;
  }

  private extended(invoke: HistoryEvent, complete: HistoryEvent): void {
    const h = this.locks.get(invoke.lock ?? "lock")?.holds.get(invoke.process);
    if (!h) return;
    h.extends++;
    if (h.endUs !== Infinity) h.endUs = Math.max(h.endUs, complete.timeUs + this.leaseUs(ttlMsOf({ invoke, complete }) ?? this.ttlMs));
  }

  /** An acquire or release with no answer may have set or kept a lease: covered from its invoke to one TTL after. */
  private onUnanswered(invoke: HistoryEvent, complete: HistoryEvent | undefined): void {
    const c = this.lockOf(invoke.lock ?? "lock");
    const endUs = (complete?.timeUs ?? this.lastUs) + this.ttlUs + this.slackUs;
    this.cutAll(c, invoke.timeUs);
    c.pastEndUs = Math.max(c.pastEndUs, endUs);
    if (invoke.f === "acquire") {
      const w = this.waits.get(`${invoke.lock ?? "lock"}\u0000${invoke.process}`);
      if (w && complete === undefined) w.answered = undefined;
    }
  }

  /** A client's hold of `lock` ends (release, lapse, crash, its next grant), covering until `coverEndUs`. */
  private closeHold(lock: string, client: string, coverEndUs: number): void {
    const c = this.locks.get(lock);
    const h = c?.holds.get(client);
    if (!c || !h) return;
    const endUs = Math.min(h.endUs, coverEndUs);
    c.holds.delete(client);
    c.pastEndUs = Math.max(c.pastEndUs, endUs);
    this.holdEnded(lock, h, Math.min(endUs, this.lastUs));
  }

  /** A hold that covered longer than the bound while someone waited: legitimate, reported apart. */
  private holdEnded(lock: string, h: LiveHold, untilUs: number): void {
    if (untilUs - h.fromUs <= this.boundUs || h.waiters.size === 0) return;
    this.longHolds.total++;
    if (this.longHolds.list.length < 20)
      this.longHolds.list.push({
        lock,
        client: h.client,
        ...(h.grantId ? { grantId: h.grantId } : {}),
        fromUs: h.fromUs,
        untilUs,
        heldMs: (untilUs - h.fromUs) / 1000,
        extends: h.extends,
        waiters: [...h.waiters],
      });
  }

  private clientCrashed(client: string, atUs: number): void {
    for (const w of [...this.waits.values()]) if (w.client === client && w.crash === undefined) w.crash = this.snapshot(w, atUs);
    for (const [lock, c] of this.locks) {
      const h = c.holds.get(client);
      if (h) this.closeHold(lock, client, atUs + this.leaseUs(this.ttlMs));
    }
    this.crashed.clientCrashed(client, atUs, this.faultActive());
  }

  private snapshot(w: Wait, atUs: number): Snapshot {
    const copy = { ...w };
    this.cut(copy, this.lockOf(w.lock), atUs);
    return { atUs, longestUs: copy.longestUs, longestFromUs: copy.longestFromUs };
  }

  private endWait(w: Wait, atUs: number, outcome: SlowWait["outcome"]): void {
    const c = this.lockOf(w.lock);
    const crashed = w.crash && w.crash.atUs < atUs ? w.crash : undefined;
    const gaveUp = outcome === "still-waiting" && w.answered !== undefined ? w.answered : undefined;
    const snap = crashed ?? gaveUp ?? this.snapshot(w, atUs);
    const how = crashed || gaveUp ? "gave-up" : outcome;
    c.waits.delete(w);
    this.waits.delete(`${w.lock}\u0000${w.client}`);
    this.judgedWaits.push({ wait: w, untilUs: snap.atUs, outcome: how, snap });
    if (this.judgedWaits.length > 64) this.flushJudged();
  }

  /** Waits are judged once the history's end shows whether a fault was left active over them. */
  private flushJudged(): void {
    if (this.faultActive()) return;
    for (const j of this.judgedWaits.splice(0)) this.judge(j.wait, j.untilUs, j.outcome, j.snap);
  }

  private judge(w: Wait, untilUs: number, outcome: SlowWait["outcome"], snap: Snapshot): void {
    if (untilUs <= w.startUs) return;
    const v = this.verdicts;
    const slow = snap.longestUs > this.boundUs;
    const overlapsUnhealed = this.faultActive() && this.faultActiveSinceUs !== undefined && untilUs > this.faultActiveSinceUs;
    if (!slow && overlapsUnhealed) {
      v.unjudged++;
      return;
    }
    v.judged++;
    const neverServed = outcome !== "granted" && !w.served;
    if (neverServed) {
      v.unservedTotal++;
      if (v.unserved.length < 20) v.unserved.push({ client: w.client, lock: w.lock, waitedMs: (untilUs - w.startUs) / 1000 });
    }
    if (!slow) return;
    v.slowTotal++;
    if (v.slow.length < 20)
      v.slow.push({
        lock: w.lock,
        client: w.client,
        waitFromUs: w.startUs,
        judgedFromUs: snap.longestFromUs,
        untilUs,
        outcome,
        gapMs: snap.longestUs / 1000,
        boundMs: this.boundMs,
      });
  }
}
