import { NEMESIS, type FaultValue, type HistoryEvent, type Operation } from "../sim/history.js";
import { LiveHolds, type Hold } from "./holds.js";
import { Pairer } from "./pairs.js";
import { semanticsOf } from "../faults/index.js";
import { derivedOf, duringReleaseWhy, expiryWhy, overlapWhy, servedWhy, waitedWhy, type ChallengeResult, type ChallengeTtl } from "./challenge.js";
import { DerivedChallenge } from "./challenge-derived.js";
import type { ChallengeSpec } from "../scenarios/challenge-spec.js";

/**
 * The challenge (checkers/challenge.ts) over a stream, for `run --duration`: each kind
 * finds its instances as the events come, holding the live holds, the ops in flight and,
 * per lock, the ended holds and the grants a later event can still meet (each detector
 * drops the rest when its lock is granted again). `challenged` and the count are
 * batch's; two things may differ on histories batch keeps whole: the instance named (the
 * first found, which may not be the first in the history's order when a hold is
 * stretched later), and why nothing met (a count, not the story of one wait).
 */

type Span = Pick<Operation, "process" | "lock" | "startUs" | "endUs">;

interface Detector {
  push(e: HistoryEvent): void;
  finish(): void;
  count: number;
  /** The instance to name: the lowest rank found, and its sentence. */
  first?: { rank: number; why: () => string };
}

/** Confirmations that need time to move past a point (an equal time would not count). */
class AfterTime {
  private readonly waiting: Array<{ atUs: number; run: () => void }> = [];
  at(atUs: number, run: () => void): void {
    this.waiting.push({ atUs, run });
  }
  advance(nowUs: number): void {
    while (this.waiting.length > 0 && this.waiting[0]!.atUs < nowUs) this.waiting.shift()!.run();
  }
  flush(): void {
    this.advance(Infinity);
  }
}

abstract class Base implements Detector {
  count = 0;
  first?: { rank: number; why: () => string };
  protected readonly later = new AfterTime();
  protected lastUs = 0;
  /** The live holds and the op pairs a detector reads, when it reads them: fed before onEvent. */
  protected readonly holds?: LiveHolds;
  protected readonly pairer?: Pairer;
  protected note(rank: number, why: () => string): void {
    this.count++;
    if (!this.first || rank < this.first.rank) this.first = { rank, why };
  }
  push(e: HistoryEvent): void {
    this.later.advance(e.timeUs);
    this.lastUs = e.timeUs;
    this.onEvent(e);
    this.holds?.push(e);
    this.pairer?.push(e);
  }
  finish(): void {
    this.later.flush();
    this.holds?.finish();
    this.onFinish();
  }
  protected onEvent(_e: HistoryEvent): void {}
  protected onFinish(): void {}
}

function pushRecent<T>(map: Map<string, T[]>, lock: string, item: T): void {
  const list = map.get(lock);
  if (list === undefined) map.set(lock, [item]);
  else list.push(item);
}

/** Keep the lock's items that `keep` accepts (in place; the entry goes when none is left). */
function pruneRecent<T>(map: Map<string, T[]>, lock: string, keep: (item: T) => boolean): void {
  const list = map.get(lock);
  if (list === undefined) return;
  let n = 0;
  for (const item of list) if (keep(item)) list[n++] = item;
  list.length = n;
  if (n === 0) map.delete(lock);
}

/** A lock's holds that can still change (open, or ended and not retired), and the first granted of them. */
function liveOf(holds: LiveHolds, lock: string): { live: Set<Hold>; first: Hold | undefined } {
  const live = new Set([...holds.openOf(lock), ...holds.stretchable(lock)]);
  let first: Hold | undefined;
  for (const h of live) if (!first || h.acquireIndex < first.acquireIndex) first = h;
  return { live, first };
}

/** overlapping-belief: a grant while another client still believed it held (a lapse found mid-pause counts until it wakes). */
class OverlapDetector extends Base {
  private readonly counted = new WeakSet<Hold>();
  private readonly recent = new Map<string, Hold[]>();
  private readonly paused = new Set<string>();
  /** Holds that lapsed while their client was paused: believed until it wakes. */
  private readonly lapsedAsleep = new Set<Hold>();
  private readonly beliefEndUs = new WeakMap<Hold, number>();
  protected override readonly holds = new LiveHolds({
    granted: (h, open) => this.granted(h, open),
    stretched: (o) => this.stretched(o),
    closed: (h) => void (h.endedBy === "lapse" && this.paused.has(h.process) && this.lapsedAsleep.add(h)),
  });

  protected override onEvent(e: HistoryEvent): void {
    if (e.process === NEMESIS && semanticsOf(e.f).stopsTarget === true) this.pause(e);
  }

  protected override onFinish(): void {
    for (const h of this.lapsedAsleep) this.beliefEndUs.set(h, this.lastUs);
  }

  private pause(e: HistoryEvent): void {
    const v = e.value as FaultValue | undefined;
    for (const t of v?.targets ?? []) {
      if (v?.phase === "start") this.paused.add(t);
      if (v?.phase !== "end") continue;
      this.paused.delete(t);
      for (const h of [...this.lapsedAsleep]) {
        if (h.process !== t) continue;
        this.beliefEndUs.set(h, Math.max(h.endUs, e.timeUs));
        this.lapsedAsleep.delete(h);
      }
    }
  }

  /** A belief's end as far as known: Infinity while it may still go on. */
  private endOf(h: Hold): number {
    if (h.endIndex === Infinity || this.lapsedAsleep.has(h)) return Infinity;
    return Math.max(this.beliefEndUs.get(h) ?? -Infinity, h.endUs);
  }

  private granted(h: Hold, open: ReadonlySet<Hold>): void {
    const candidates = [...open, ...this.lapsedAsleep].filter((o) => o.lock === h.lock && o.process !== h.process);
    this.prune(h.lock);
    pushRecent(this.recent, h.lock, h);
    if (candidates.length > 0) this.later.at(h.startUs, () => this.confirm(h, candidates));
  }

  private confirm(h: Hold, candidates: readonly Hold[]): void {
    if (this.counted.has(h) || this.endOf(h) <= h.startUs) return;
    const other = candidates.filter((o) => this.endOf(o) > h.startUs).sort((a, b) => a.acquireIndex - b.acquireIndex)[0];
    if (!other) return;
    this.counted.add(h);
    this.note(h.acquireIndex, () => overlapWhy({ ...h, endUs: this.endOf(h) }, { ...other, endUs: this.endOf(other) }));
  }

  /**
   * Drop the ended holds no stretch can meet any more: a stretched hold is a live one
   * (ended, not retired) and meets the holds granted after it, and those before it whose
   * belief ended after it began; a hold still believed asleep stays.
   */
  private prune(lock: string): void {
    const { live, first } = liveOf(this.holds, lock);
    const fromIndex = first?.acquireIndex ?? Infinity;
    const fromUs = first?.startUs ?? Infinity;
    pruneRecent(this.recent, lock, (x) => live.has(x) || x.acquireIndex > fromIndex || this.endOf(x) > fromUs);
  }

  /**
   * A stale act: o's belief now reaches further. Later grants by others that began
   * before its new end met it; and o itself, if it now outlasts its own grant, met the
   * holds of others it began under.
   */
  private stretched(o: Hold): void {
    const recent = this.recent.get(o.lock) ?? [];
    for (const h of recent) if (h.acquireIndex > o.acquireIndex && h.process !== o.process && h.startUs < o.endUs) this.confirm(h, [o]);
    const earlier = [...recent, ...this.holds.openOf(o.lock)].filter((a) => a.acquireIndex < o.acquireIndex && a.process !== o.process);
    this.confirm(o, earlier);
  }
}

/** waiter-served: a client granted a lock it asked for while another held it. */
class ServedDetector extends Base {
  /** Per lock, its holds a grant may still meet: the live ones, and those ended after an acquire still waiting began. */
  private readonly recentHolds = new Map<string, Hold[]>();
  /** Per lock, its grants not yet counted that a live hold began before: a stretch of it may still meet them. */
  private readonly recentGrants = new Map<string, Array<{ op: Span; rank: number; counted: boolean }>>();
  /** Each client's acquire not yet answered (its lock and start), and per lock the clients waiting. */
  private readonly waitingOf = new Map<string, { lock: string; startUs: number }>();
  private readonly waitingOn = new Map<string, Set<string>>();
  protected override readonly holds = new LiveHolds({
    granted: (h) => {
      this.prune(h.lock);
      pushRecent(this.recentHolds, h.lock, h);
    },
    stretched: (h) => this.stretched(h),
  });
  protected override readonly pairer = new Pairer((invoke, complete) => this.answered(invoke, complete));

  /** A client's invoke ends its earlier acquire, if any was open (pairs.ts's rule); an acquire opens a wait. */
  protected override onEvent(e: HistoryEvent): void {
    if (e.type !== "invoke") return;
    this.stopWaiting(e.process);
    if (e.f !== "acquire") return;
    const lock = e.lock ?? "";
    this.waitingOf.set(e.process, { lock, startUs: e.timeUs });
    const on = this.waitingOn.get(lock);
    if (on === undefined) this.waitingOn.set(lock, new Set([e.process]));
    else on.add(e.process);
  }

  private stopWaiting(process: string): void {
    const w = this.waitingOf.get(process);
    if (w === undefined) return;
    this.waitingOf.delete(process);
    const on = this.waitingOn.get(w.lock);
    on?.delete(process);
    if (on?.size === 0) this.waitingOn.delete(w.lock);
  }

  /** Drop what no later grant or stretch can meet (a grant's acquire began before the hold ended; a stretched hold began before the grant). */
  private prune(lock: string): void {
    const { live, first } = liveOf(this.holds, lock);
    let waitFromUs = Infinity;
    for (const p of this.waitingOn.get(lock) ?? []) waitFromUs = Math.min(waitFromUs, this.waitingOf.get(p)!.startUs);
    pruneRecent(this.recentHolds, lock, (h) => live.has(h) || h.endUs > waitFromUs);
    const liveFromUs = first?.startUs ?? Infinity;
    pruneRecent(this.recentGrants, lock, (g) => !g.counted && g.op.endUs > liveFromUs);
  }

  private answered(invoke: HistoryEvent, complete: HistoryEvent): void {
    if (invoke.f !== "acquire") return;
    this.stopWaiting(invoke.process);
    if (complete.type !== "ok") return;
    const g = { op: { process: invoke.process, lock: invoke.lock, startUs: invoke.timeUs, endUs: complete.timeUs }, rank: invoke.index, counted: false };
    pushRecent(this.recentGrants, invoke.lock ?? "", g);
    const lock = invoke.lock ?? "";
    this.check(g, [...this.holds.openOf(lock), ...(this.recentHolds.get(lock) ?? [])]);
  }

  private check(g: { op: Span; rank: number; counted: boolean }, holds: readonly Hold[]): void {
    if (g.counted) return;
    const { op } = g;
    const held = holds
      .filter((h) => h.process !== op.process && h.startUs < op.endUs && (h.endIndex === Infinity ? op.endUs > op.startUs : h.endUs > op.startUs))
      .sort((a, b) => a.acquireIndex - b.acquireIndex)[0];
    if (!held) return;
    g.counted = true;
    this.note(g.rank, () => servedWhy(op, held));
  }

  private stretched(h: Hold): void {
    for (const g of this.recentGrants.get(h.lock) ?? []) this.check(g, [h]);
  }
}

/** granted-during-release: a grant while another client's release of the lock was outstanding. */
class DuringReleaseDetector extends Base {
  /** Per lock, each client's release not yet answered (an unanswered one stays: it never was). */
  private readonly releases = new Map<string, Map<string, { span: Span; answeredUs?: number; rank: number }>>();
  protected override readonly pairer = new Pairer((invoke, complete) => this.answered(invoke, complete));

  protected override onEvent(e: HistoryEvent): void {
    if (e.type === "invoke" && e.f === "release") {
      const byClient = this.releases.get(e.lock ?? "") ?? new Map();
      this.releases.set(e.lock ?? "", byClient);
      byClient.set(e.process, { span: { process: e.process, lock: e.lock, startUs: e.timeUs, endUs: Infinity }, rank: e.index });
    }
  }

  private answered(invoke: HistoryEvent, complete: HistoryEvent): void {
    if (invoke.f === "release") {
      const r = this.releases.get(invoke.lock ?? "")?.get(invoke.process);
      if (r && r.rank === invoke.index) r.answeredUs = complete.timeUs;
      return;
    }
    if (invoke.f !== "acquire" || complete.type !== "ok") return;
    const op: Span = { process: invoke.process, lock: invoke.lock, startUs: invoke.timeUs, endUs: complete.timeUs };
    const outstanding = [...(this.releases.get(invoke.lock ?? "")?.values() ?? [])].filter(
      (r) => r.span.process !== op.process && r.span.startUs < op.endUs && r.answeredUs === undefined,
    );
    if (outstanding.length === 0) return;
    this.later.at(op.endUs, () => {
      const rel = outstanding.filter((r) => r.answeredUs === undefined || r.answeredUs > op.endUs).sort((a, b) => a.rank - b.rank)[0];
      if (rel) this.note(invoke.index, () => duringReleaseWhy(op, rel.span));
    });
  }
}

/** expiry-handover: a grant taken over from a hold its release had not freed (the lease ran out). */
class ExpiryDetector extends Base {
  /** Holds not yet freed by a release, with the first later grant of their lock to another client. */
  private readonly unfreed = new Map<string, { h: Hold; by?: Hold; retired?: boolean }>();
  protected override readonly holds = new LiveHolds({ granted: (h) => this.granted(h), retired: (h) => this.retired(h) });
  protected override readonly pairer = new Pairer((invoke, complete) => this.answered(invoke, complete));

  /** Its client moved on (or crashed, or the history ended): no release of it can be answered any more. */
  private retired(h: Hold): void {
    const u = this.unfreed.get(h.grantId);
    if (!u || u.h !== h) return;
    if (h.endedBy === "end-of-history") this.unfreed.delete(h.grantId);
    else if (u.by) this.settle(u, u.by);
    else u.retired = true; // decided by the next grant of its lock to another client
  }

  private granted(h: Hold): void {
    for (const u of [...this.unfreed.values()]) {
      if (u.h.lock !== h.lock || u.h.process === h.process || u.by) continue;
      u.by = h;
      if (u.retired) this.settle(u, h);
    }
    this.unfreed.set(h.grantId, { h });
  }

  private settle(u: { h: Hold }, by: Hold): void {
    this.unfreed.delete(u.h.grantId);
    this.taken(u.h, by);
  }

  /** The first release that freed a grant: taken over before it was sent, or not at all. */
  private answered(invoke: HistoryEvent, complete: HistoryEvent): void {
    if (invoke.f !== "release" || complete.type !== "ok") return;
    const g = (invoke.value as { grantId?: string } | undefined)?.grantId;
    if (g === undefined || (complete.value as { released?: boolean } | undefined)?.released === false) return;
    const u = this.unfreed.get(g);
    if (!u) return;
    this.unfreed.delete(g);
    if (u.by && u.by.startUs < invoke.timeUs) this.taken(u.h, u.by);
  }

  private taken(h: Hold, by: Hold): void {
    this.note(h.acquireIndex, () => expiryWhy(h, by));
  }
}

/** waiter-waited: an acquire outstanding for the bound with no grant of its lock to anyone meanwhile. */
class WaitedDetector extends Base {
  private longest?: { waitedUs: number; rank: number; why: () => string };
  private readonly waiting = new Map<string, { span: Span; rank: number; boundMs: number; lock: string }>();
  protected override readonly pairer = new Pairer((invoke, complete) => this.ended(invoke, complete));

  constructor(private readonly waitedMsMin: number | undefined) {
    super();
  }

  protected override onEvent(e: HistoryEvent): void {
    if (e.type === "invoke" && e.f === "acquire") {
      const boundMs = this.waitedMsMin ?? (e.value as { ttlMs?: number } | undefined)?.ttlMs ?? 0;
      this.waiting.set(`${e.process}\u0000${e.index}`, {
        span: { process: e.process, lock: e.lock, startUs: e.timeUs, endUs: Infinity },
        rank: e.index,
        boundMs,
        lock: e.lock ?? "",
      });
    }
  }

  protected override onFinish(): void {
    for (const w of [...this.waiting.values()]) this.judge(w, this.lastUs);
  }

  private ended(invoke: HistoryEvent, complete: HistoryEvent): void {
    if (invoke.f !== "acquire") return;
    const w = this.waiting.get(`${invoke.process}\u0000${invoke.index}`);
    if (w) this.judge(w, complete.timeUs);
    if (complete.type !== "ok") return;
    // A grant ends every other wait on the lock that began before it.
    for (const o of [...this.waiting.values()]) if (o.lock === (invoke.lock ?? "") && o.span.startUs < complete.timeUs) this.judge(o, complete.timeUs);
  }

  private judge(w: { span: Span; rank: number; boundMs: number }, untilUs: number): void {
    this.waiting.delete(`${w.span.process}\u0000${w.rank}`);
    const waitedUs = untilUs - w.span.startUs;
    if (waitedUs < w.boundMs * 1000) return;
    this.count++;
    if (!this.longest || waitedUs > this.longest.waitedUs) this.longest = { waitedUs, rank: w.rank, why: () => waitedWhy(w.span, waitedUs, w.boundMs) };
    // This kind names the longest wait, not the first: one entry, replaced when a longer one comes.
    this.first = { rank: 0, why: this.longest.why };
  }
}

export class OnlineChallenge {
  private readonly detector: Detector;
  private readonly kind: ChallengeSpec["kind"];
  private grants = 0;
  private acquires = 0;
  private readonly grantees = new Set<string>();
  private readonly pairer = new Pairer(
    (invoke, complete) => {
      if (invoke.f !== "acquire") return;
      this.acquires++;
      if (complete.type === "ok") {
        this.grants++;
        this.grantees.add(invoke.process);
      }
    },
    (invoke) => void (invoke.f === "acquire" && this.acquires++),
  );

  /** The derived rules' instances (a scenario with no rule, or one of the derived kinds), beside the detector. */
  private readonly derived: DerivedChallenge | undefined;

  constructor(spec: ChallengeSpec = { kind: "derived" }, ttl: ChallengeTtl = {}) {
    this.kind = spec.kind;
    const derived = spec.kind === "derived" || spec.kind === "client-fault-contended" || spec.kind === "server-fault-during-hold";
    this.derived = derived ? new DerivedChallenge(ttl) : undefined;
    this.detector =
      spec.kind === "waiter-served"
        ? new ServedDetector()
        : spec.kind === "granted-during-release"
          ? new DuringReleaseDetector()
          : spec.kind === "expiry-handover" || derived
            ? new ExpiryDetector()
            : spec.kind === "waiter-waited"
              ? new WaitedDetector(spec.waitedMsMin)
              : new OverlapDetector();
  }

  push(e: HistoryEvent): void {
    this.detector.push(e);
    this.derived?.push(e);
    this.pairer.push(e);
  }

  result(): ChallengeResult {
    this.detector.finish();
    this.pairer.finish();
    const base = { kind: this.kind, grants: this.grants, acquiresFailed: this.acquires - this.grants };
    const { count, first } = this.detector;
    if (this.derived) {
      const expiry =
        count > 0 && first ? { challenged: true, count, why: first.why() } : { challenged: false, count: 0, why: "no lock changed hands by expiry" };
      if (this.kind === "derived") return { ...base, ...derivedOf(this.derived, expiry, () => this.nothingMet()) };
      const m = this.derived.met[this.kind as "client-fault-contended"];
      return { ...base, challenged: m.count > 0, count: m.count, why: m.first ?? `nothing met the rule ${this.kind}` };
    }
    if (count > 0 && first) return { ...base, challenged: true, count, why: first.why() };
    return { ...base, challenged: false, count: 0, why: this.grants > 0 ? `${this.nothingMet()} (${this.kind})` : this.nothingMet() };
  }

  /** Counts, not the story of one wait (the online form keeps no history to tell it from). */
  private nothingMet(): string {
    if (this.grants > 0) return `nothing met in ${this.grants} grants to ${this.grantees.size} client(s)`;
    return this.acquires === 0 ? "no client asked for a lock" : `nobody was ever granted a lock (${this.acquires} attempts)`;
  }
}
