import { NEMESIS, type HistoryEvent } from "../sim/history.js";
import {
  CRASH_KINDS,
  INSTANT_KINDS,
  RETRY_SLACK_FRACTION,
  WITNESS_MAX,
  LIVENESS,
  liveness,
  livenessResult,
  grantIdOf,
  ttlMsOf,
  type CrashedHolder,
  type CrashedHolders,
  type SlowWait,
  type WaitVerdicts,
} from "./liveness.js";
import { Pairer } from "./pairs.js";
import type { CheckContext, CheckResult, OnlineChecker } from "./types.js";
import { BufferedChecker } from "./buffered.js";

/** The online form needs the TTL up front (the calm point moves by it); without one, the batch checker is fed (buffered). */
export function onlineLiveness(ctx: CheckContext): OnlineChecker {
  const ttlMs = ctx.sessionTimeoutMs ?? ctx.ttlMs;
  if (ttlMs === undefined) return new BufferedChecker(LIVENESS, liveness, ctx);
  return new OnlineLiveness(ctx, ttlMs, ctx.livenessBoundMs ?? 2 * ttlMs);
}

interface Wait {
  /** Order of the client+lock's first attempt: batch lists waits in that order. */
  order: number;
  lock: string;
  client: string;
  startUs: number;
  /** Where the stretch is measured from: the wait's start or the calm point, the later. */
  fromUs: number;
  prevUs: number;
  gapUs: number;
  /** A grant of the lock to anyone after the wait began. */
  served: boolean;
  /** The last attempt's answer, when it was not a grant (the wait ends there if no attempt follows). */
  answered?: { atUs: number; prevUs: number; gapUs: number };
  /** The client's first crash since the wait began: it ends the wait there. */
  crash?: { atUs: number; prevUs: number; gapUs: number };
}

interface Pending {
  holder: CrashedHolder;
  regranted: boolean;
  /** A fault was active at the crash (its span must end after the crash to count). */
  faultAtCrash: boolean;
  /** A fault began after the crash, before the deadline. */
  faultLater: boolean;
}

/**
 * Liveness over a stream (checkers/liveness.ts judges the same things in batch). Held:
 * one wait in progress per client and lock, each with the longest stretch without a
 * grant so far; counts of the waits already judged; the crashed holders whose deadline
 * has not passed. Why the waits can be judged as they end: the calm point moves only
 * when a fault comes, to that fault plus one TTL, which is past the end of every wait
 * judged before it: so a fault drops those verdicts (as batch would not judge them) and
 * restarts the open waits' stretches from the new calm point.
 */
export class OnlineLiveness implements OnlineChecker {
  private readonly boundUs: number;
  private lastUs = 0;
  private calmFromUs: number | undefined;
  private readonly active = new Map<string, number>();
  private readonly clients = new Set<string>();
  private readonly lastCrashUs = new Map<string, number>();
  private readonly waits = new Map<string, Wait>();
  private readonly orderOf = new Map<string, number>();
  /** The waits judged so far (dropped when a fault moves the calm point past them). */
  private verdicts = emptyWaits();
  /** Per client and lock: its latest grant, and whether a release of it was sent. */
  private readonly grants = new Map<string, { lock: string; grantId?: string; ttlMs?: number; released: boolean }>();
  /** Per lock, each client's last answered acquire (an answer at a crash's own time still counts as waiting at it). */
  private readonly lastAnswered = new Map<string, Map<string, { index: number; endUs: number }>>();
  /** Acquires in flight per lock: client -> its invoke's index. */
  private readonly acquiring = new Map<string, Map<string, number>>();
  /** Per lock, clients with an acquire that never got a definite answer (info, or none), by the first one's index: batch counts them as waiting from then on. */
  private readonly neverAnswered = new Map<string, Map<string, number>>();
  private readonly pending: Pending[] = [];
  private readonly crashed: Required<CrashedHolders> = { stuck: [], stuckTotal: 0, judged: 0 };
  private readonly pairer = new Pairer(
    (invoke, complete) => this.onPair(invoke, complete),
    (invoke) => this.onUnpaired(invoke),
  );

  constructor(
    private readonly ctx: CheckContext,
    private readonly ttlMs: number,
    private readonly boundMs: number,
  ) {
    this.boundUs = boundMs * 1000;
  }

  push(e: HistoryEvent): void {
    this.calmFromUs ??= e.timeUs;
    this.lastUs = e.timeUs;
    this.settlePending(e.timeUs);
    if (e.type === "invoke") this.clients.add(e.process);
    if (e.process === NEMESIS) this.fault(e);
    if (e.type === "invoke" && e.f === "acquire") this.attempt(e);
    if (e.type === "invoke" && e.f === "release") this.releaseSent(e);
    this.pairer.push(e);
  }

  result(): CheckResult {
    this.pairer.finish();
    for (const p of this.pending.splice(0)) if (p.holder.deadlineUs <= this.lastUs) this.settle(p);
    const unhealed = [...this.active.values()].some((n) => n > 0);
    const waits = this.verdicts;
    for (const w of this.waits.values()) this.judge(w, this.endOf(w));
    const calm = { calmFromUs: this.calmFromUs ?? 0, unhealed };
    if (unhealed) {
      const unjudged = waits.judged + waits.unjudged;
      return livenessResult({ ...emptyWaits(), slow: [], unserved: [], unjudged }, this.crashed, calm, this.boundMs, this.ttlMs);
    }
    const strip = <T extends Ordered>(list: T[]) =>
      sortOrdered(list)
        .slice(0, WITNESS_MAX)
        .map(({ order: _o, startUs: _s, ...rest }) => rest);
    const verdicts: WaitVerdicts = { ...waits, slow: strip(waits.slow), unserved: strip(waits.unserved) };
    return livenessResult(verdicts, this.crashed, calm, this.boundMs, this.ttlMs);
  }

  /** Faults: client crashes end waits and holds; the others move the calm point and open or close fault spans. */
  private fault(e: HistoryEvent): void {
    const v = (e.value ?? {}) as { phase?: unknown; targets?: unknown };
    if (v.phase === "skipped") return;
    const targets = Array.isArray(v.targets) ? v.targets.filter((t): t is string => typeof t === "string") : [];
    if (CRASH_KINDS.has(e.f) && targets.length > 0 && targets.every((t) => this.clients.has(t))) {
      if (v.phase !== "end") for (const t of targets) this.clientCrashed(t, e.timeUs);
      return;
    }
    if (!INSTANT_KINDS.has(e.f)) {
      const before = [...this.active.values()].some((n) => n > 0);
      if (e.f === "heal") this.active.clear();
      else if (e.f === "restart") for (const k of CRASH_KINDS) this.active.set(k, Math.max(0, (this.active.get(k) ?? 0) - 1));
      else if (v.phase === "end") this.active.set(e.f, Math.max(0, (this.active.get(e.f) ?? 0) - 1));
      else this.active.set(e.f, (this.active.get(e.f) ?? 0) + 1);
      const after = [...this.active.values()].some((n) => n > 0);
      if (!before && after) for (const p of this.pending) if (e.timeUs < p.holder.deadlineUs) p.faultLater = true;
      // A span that ended at the crash's own time did not overlap it (liveness.ts: end > crash).
      if (before && !after) for (const p of this.pending) if (e.timeUs <= p.holder.crashUs) p.faultAtCrash = false;
    }
    // The calm point moves past every wait that has ended: their verdicts are dropped.
    this.calmFromUs = e.timeUs + this.ttlMs * 1000;
    this.verdicts = emptyWaits();
    for (const w of this.waits.values()) {
      w.fromUs = Math.max(w.startUs, this.calmFromUs);
      w.prevUs = w.fromUs;
      w.gapUs = 0;
    }
  }

  private key(client: string, lock: string): string {
    return `${lock}\u0000${client}`;
  }

  private attempt(e: HistoryEvent): void {
    const lock = e.lock ?? "lock";
    const k = this.key(e.process, lock);
    const inFlight = this.acquiring.get(lock) ?? new Map<string, number>();
    this.acquiring.set(lock, inFlight);
    inFlight.set(e.process, e.index);
    for (const p of this.pending) {
      const { holder } = p;
      if (holder.lock === lock && holder.client !== e.process && e.timeUs <= holder.deadlineUs && !holder.waiters.includes(e.process))
        holder.waiters.push(e.process);
    }
    const w = this.waits.get(k);
    if (w) {
      w.answered = undefined;
      return;
    }
    if (!this.orderOf.has(k)) this.orderOf.set(k, this.orderOf.size);
    const fromUs = Math.max(e.timeUs, this.calmFromUs ?? e.timeUs);
    const wait: Wait = { order: this.orderOf.get(k)!, lock, client: e.process, startUs: e.timeUs, fromUs, prevUs: fromUs, gapUs: 0, served: false };
    const crashUs = this.lastCrashUs.get(e.process);
    if (crashUs !== undefined && crashUs >= e.timeUs) wait.crash = { atUs: crashUs, prevUs: fromUs, gapUs: 0 };
    this.waits.set(k, wait);
  }

  private onPair(invoke: HistoryEvent, complete: HistoryEvent): void {
    if (invoke.f !== "acquire") return;
    const lock = invoke.lock ?? "lock";
    this.acquiring.get(lock)?.delete(invoke.process);
    if (complete.type === "info") this.answeredNever(lock, invoke);
    const answered = this.lastAnswered.get(lock) ?? new Map<string, { index: number; endUs: number }>();
    this.lastAnswered.set(lock, answered);
    answered.set(invoke.process, { index: invoke.index, endUs: complete.timeUs });
    const w = this.waits.get(this.key(invoke.process, lock));
    if (complete.type !== "ok") {
      if (w) w.answered = { atUs: complete.timeUs, ...snapshot(w) };
      return;
    }
    this.granted(lock, complete.timeUs, invoke.process);
    const grantId = grantIdOf({ complete });
    const ttlMs = ttlMsOf({ invoke, complete });
    this.grants.set(this.key(invoke.process, lock), {
      lock,
      ...(grantId !== undefined ? { grantId } : {}),
      ...(ttlMs !== undefined ? { ttlMs } : {}),
      released: false,
    });
    if (!w) return;
    this.waits.delete(this.key(invoke.process, lock));
    this.judge(w, { untilUs: complete.timeUs, outcome: "granted", prevUs: w.prevUs, gapUs: w.gapUs });
  }

  private onUnpaired(invoke: HistoryEvent): void {
    if (invoke.f !== "acquire") return;
    this.acquiring.get(invoke.lock ?? "lock")?.delete(invoke.process);
    this.answeredNever(invoke.lock ?? "lock", invoke);
    const w = this.waits.get(this.key(invoke.process, invoke.lock ?? "lock"));
    if (w) w.answered = undefined;
  }

  private answeredNever(lock: string, invoke: HistoryEvent): void {
    const byClient = this.neverAnswered.get(lock) ?? new Map<string, number>();
    this.neverAnswered.set(lock, byClient);
    if (!byClient.has(invoke.process)) byClient.set(invoke.process, invoke.index);
  }

  /** A grant of `lock` at `atUs`: every wait on it has a stretch end there. */
  private granted(lock: string, atUs: number, client: string): void {
    for (const w of this.waits.values()) {
      if (w.lock !== lock) continue;
      if (atUs > w.startUs) w.served = true;
      if (atUs <= w.fromUs) continue;
      w.gapUs = Math.max(w.gapUs, atUs - w.prevUs);
      w.prevUs = atUs;
    }
    for (const p of this.pending)
      if (p.holder.lock === lock && p.holder.client !== client && atUs > p.holder.crashUs && atUs <= p.holder.deadlineUs) p.regranted = true;
  }

  private releaseSent(e: HistoryEvent): void {
    const g = (e.value as { grantId?: unknown } | undefined)?.grantId;
    for (const [k, held] of this.grants) {
      if (!k.endsWith(`\u0000${e.process}`)) continue;
      if (held.grantId === undefined || held.grantId === g) held.released = true;
    }
  }

  private clientCrashed(client: string, atUs: number): void {
    this.lastCrashUs.set(client, atUs);
    for (const w of this.waits.values()) if (w.client === client && w.crash === undefined) w.crash = { atUs, ...snapshot(w) };
    for (const [k, held] of this.grants) {
      if (!k.endsWith(`\u0000${client}`) || held.released) continue;
      const grantTtlMs = this.ctx.sessionTimeoutMs ?? held.ttlMs ?? this.ttlMs;
      const drift = 1 + (this.ctx.clockDriftPpmMax ?? 0) / 1e6;
      const deadlineUs = atUs + grantTtlMs * 1000 * (drift + RETRY_SLACK_FRACTION);
      const holder: CrashedHolder = {
        lock: held.lock,
        client,
        ...(held.grantId ? { grantId: held.grantId } : {}),
        crashUs: atUs,
        deadlineUs,
        waiters: this.waitingAt(held.lock, client, atUs),
      };
      this.pending.push({ holder, regranted: false, faultAtCrash: [...this.active.values()].some((n) => n > 0), faultLater: false });
    }
  }

  /** Clients other than `client` waiting on `lock` now, in the order of their acquires (as batch lists them). */
  private waitingAt(lock: string, client: string, atUs: number): string[] {
    const first = new Map<string, number>();
    for (const [c, a] of this.lastAnswered.get(lock) ?? []) if (c !== client && a.endUs >= atUs) first.set(c, a.index);
    for (const m of [this.acquiring.get(lock), this.neverAnswered.get(lock)])
      for (const [c, index] of m ?? []) if (c !== client) first.set(c, Math.min(first.get(c) ?? Infinity, index));
    return [...first].sort((a, b) => a[1] - b[1]).map(([c]) => c);
  }

  /** Crashed holders whose deadline has passed are judged. */
  private settlePending(nowUs: number): void {
    if (this.pending.length === 0 || this.pending[0]!.holder.deadlineUs >= nowUs) return;
    for (let i = 0; i < this.pending.length;) {
      if (this.pending[i]!.holder.deadlineUs < nowUs) this.settle(this.pending.splice(i, 1)[0]!);
      else i++;
    }
  }

  private settle(p: Pending): void {
    if (p.faultAtCrash || p.faultLater || p.holder.waiters.length === 0) return;
    this.crashed.judged++;
    if (p.regranted) return;
    this.crashed.stuckTotal++;
    if (this.crashed.stuck.length < WITNESS_MAX) this.crashed.stuck.push(p.holder);
  }

  /** Where a wait still open when the history ends stops: its last answer, or the end. */
  private endOf(w: Wait): WaitEnd {
    if (w.answered) return { untilUs: w.answered.atUs, outcome: "gave-up", prevUs: w.answered.prevUs, gapUs: w.answered.gapUs };
    return { untilUs: this.lastUs, outcome: "still-waiting", prevUs: w.prevUs, gapUs: w.gapUs };
  }

  /** liveness.ts judgeWait, from what the stream told about the wait. */
  private judge(w: Wait, end: WaitEnd): void {
    const { untilUs, outcome, prevUs, gapUs } =
      w.crash && w.crash.atUs < end.untilUs ? { ...w.crash, untilUs: w.crash.atUs, outcome: "gave-up" as const } : end;
    const neverServed = outcome !== "granted" && !w.served;
    const fromUs = neverServed ? w.startUs : w.fromUs;
    if (untilUs <= fromUs) return;
    const v = this.verdicts;
    v.judged++;
    if (neverServed) {
      v.unservedTotal++;
      keepFirst(v.unserved, { client: w.client, lock: w.lock, waitedMs: (untilUs - w.startUs) / 1000, order: w.order, startUs: w.startUs });
    }
    if (untilUs - fromUs <= this.boundUs) return;
    const longestUs = neverServed ? untilUs - w.startUs : Math.max(gapUs, untilUs - prevUs);
    if (longestUs <= this.boundUs) return;
    v.slowTotal++;
    const slow = {
      lock: w.lock,
      client: w.client,
      waitFromUs: w.startUs,
      judgedFromUs: fromUs,
      untilUs,
      outcome,
      gapMs: longestUs / 1000,
      boundMs: this.boundMs,
    };
    keepFirst(v.slow, { ...slow, order: w.order, startUs: w.startUs });
  }
}

type WaitEnd = { untilUs: number; outcome: SlowWait["outcome"]; prevUs: number; gapUs: number };
type Ordered = { order: number; startUs: number };

/** Keep the first WITNESS_MAX in batch's order (client+lock first seen, then start), trimming now and then. */
function keepFirst<T extends Ordered>(list: T[], item: T): void {
  list.push(item);
  if (list.length <= 4 * WITNESS_MAX) return;
  sortOrdered(list);
  list.splice(WITNESS_MAX);
}

function sortOrdered<T extends Ordered>(list: T[]): T[] {
  return list.sort((a, b) => a.order - b.order || a.startUs - b.startUs);
}

/** A wait's stretch so far, for a wait that may end here. */
function snapshot(w: Wait): { prevUs: number; gapUs: number } {
  return { prevUs: w.prevUs, gapUs: w.gapUs };
}

type Unserved = WaitVerdicts["unserved"][number];

function emptyWaits() {
  return {
    slow: [] as Array<SlowWait & Ordered>,
    slowTotal: 0,
    judged: 0,
    unjudged: 0,
    unserved: [] as Array<Unserved & Ordered>,
    unservedTotal: 0,
  };
}
