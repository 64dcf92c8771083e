import type { HistoryEvent } from "../sim/history.js";
import { NEMESIS } from "../sim/history.js";
import { forEachPair, Pairer } from "./pairs.js";
import { semanticsOf } from "../faults/index.js";

/**
 * Holds: the intervals of true time in which a client believed it held a lock and
 * acted on it. A hold starts at acquire-ok and ends at the first of: the client's
 * release invoke, its own `lapse` note, its crash, or the end of the history. Any
 * read/write the client performed under the grant stretches the hold to cover it
 * (to the completion of an ok op; to the invoke of one that failed or is unknown),
 * and so does an extend the server accepted (to its ok): a client that acts after its
 * lease lapsed was still acting as the holder.
 *
 * The `lapse` note is taken when the client's clock passes the lease end, even while
 * the client is paused (harness/workload.ts), so a client that wakes, finds its lease
 * gone and does nothing is not counted as holding through the pause.
 *
 * Grants are matched by `value.grantId` where present (lockstep's own histories),
 * else by process and lock in order (imported histories).
 *
 * Which came first is the history's order, not its clock: a hold runs from its
 * acquire-ok event to its ending event (by index), so a client that writes after its
 * own release at the same microsecond still acted after it.
 */
export interface Hold {
  process: string;
  lock: string;
  grantId: string;
  token?: number;
  startUs: number;
  endUs: number;
  /** How the hold ended ("lease": the lease its acquire reported ran out, where the history records no beliefs). */
  endedBy: "release" | "lapse" | "crash" | "lease" | "end-of-history";
  /** Index of the acquire-ok event: where the hold starts in the history's order. */
  acquireIndex: number;
  /** Index of the event that ends it (Infinity: still held when the history ends). */
  endIndex: number;
  /** Whether a read/write (or accepted extend) after the end of belief stretched it. */
  stretched: boolean;
  /** Whether the client read, wrote or extended under it at all. */
  acted: boolean;
  /** False when the grant came already expired (validityMs ≤ 0 at acquire-ok). */
  validAtGrant: boolean;
  /** Where the history records no beliefs: the earliest true time its lease may end (computeHolds' LeaseEnds). */
  leaseEndUs?: number;
}

/** Lease ends of open holds, for histories without beliefs (see LeaseEnds). */
class LeaseClock {
  private readonly invokedUs = new Map<string, { f: string; timeUs: number; value: unknown }>();
  private readonly leased = new Set<Hold>();
  private readonly ttlMsOf = new Map<Hold, number | undefined>();
  private readonly factor: number;

  constructor(private readonly leases: LeaseEnds) {
    this.factor = 1 - (leases.clockDriftPpmMax ?? 0) / 1e6;
  }

  /** Open holds whose lease ended before `e` (in the order of their ends). */
  endedBy(e: HistoryEvent): Hold[] {
    const out: Hold[] = [];
    for (const h of this.leased) if (h.endUs !== Infinity || h.leaseEndUs! <= e.timeUs) out.push(h);
    for (const h of out) {
      this.leased.delete(h);
      this.ttlMsOf.delete(h);
    }
    return out.filter((h) => h.endUs === Infinity).sort((a, b) => a.leaseEndUs! - b.leaseEndUs!);
  }

  see(e: HistoryEvent, open: Hold | undefined): void {
    if (e.type === "invoke") this.invokedUs.set(e.process, { f: e.f, timeUs: e.timeUs, value: e.value });
    else if (e.type === "ok" && e.f === "extend" && open && this.leased.has(open)) {
      const inv = this.invokedUs.get(e.process);
      const ttlMs = ttlOf(inv?.value) ?? this.ttlMsOf.get(open) ?? this.leases.ttlMs;
      if (inv?.f === "extend" && ttlMs !== undefined) open.leaseEndUs = Math.max(open.leaseEndUs!, inv.timeUs + ttlMs * 1000 * this.factor);
    }
  }

  granted(h: Hold, ok: HistoryEvent): void {
    const inv = this.invokedUs.get(ok.process);
    const ttlMs = ttlOf(ok.value) ?? ttlOf(inv?.value) ?? this.leases.ttlMs;
    const validityMs = (ok.value as { validityMs?: unknown } | undefined)?.validityMs;
    if (ttlMs !== undefined && inv?.f === "acquire") h.leaseEndUs = inv.timeUs + ttlMs * 1000 * this.factor;
    else if (typeof validityMs === "number") h.leaseEndUs = ok.timeUs + validityMs * 1000;
    else return;
    this.ttlMsOf.set(h, ttlMs);
    this.leased.add(h);
  }
}

function ttlOf(v: unknown): number | undefined {
  const t = (v as { ttlMs?: unknown } | undefined)?.ttlMs;
  return typeof t === "number" && t > 0 ? t : undefined;
}

/**
 * Where the history records no client's belief (imported: no `lapse` notes), a hold ends
 * at its lease at the latest, as the lease-lock model has it: from the acquire's invoke
 * (or the last accepted extend's) plus its TTL × (1 − drift), the earliest the server may
 * have let it go. Another client granted at or after that point did not overlap it; a
 * read or write under the grant later still stretches it.
 */
export interface LeaseEnds {
  /** TTL for acquires that report none, ms. */
  ttlMs?: number;
  clockDriftPpmMax?: number;
}

/** Whether a history records each client's belief (lockstep's workload: `lapse` notes, acquires with waitMs and grant ids). */
export function recordsBeliefs(history: readonly HistoryEvent[]): boolean {
  let acquires = 0;
  for (const e of history) {
    if (e.f === "lapse") return true;
    if (e.f !== "acquire" || e.type === "fail" || e.type === "info") continue;
    const v = e.value as { waitMs?: unknown; grantId?: unknown } | undefined;
    if (e.type === "invoke" ? typeof v?.waitMs !== "number" : typeof v?.grantId !== "string") return false;
    acquires++;
  }
  return acquires > 0;
}

/** The holds sharedHolds computed last for a history, with its length and last event then (a history that grew is computed afresh). */
const shared = new WeakMap<readonly HistoryEvent[], { length: number; last: HistoryEvent | undefined; holds: readonly Hold[] }>();

/**
 * computeHolds(history), computed once for every reader of one history that only reads
 * them (mutual exclusion and the challenge each took ~0.2 CPU s of a 360,000-event
 * history to compute the same holds). Callers must not change the holds or the list;
 * one that does (a belief adjusted for pauses) takes computeHolds' own fresh copy.
 */
export function sharedHolds(history: readonly HistoryEvent[]): readonly Hold[] {
  const last = history[history.length - 1];
  const known = shared.get(history);
  if (known !== undefined && known.length === history.length && known.last === last) return known.holds;
  const holds = computeHolds(history);
  shared.set(history, { length: history.length, last, holds });
  return holds;
}

export function computeHolds(history: readonly HistoryEvent[], leases?: LeaseEnds): Hold[] {
  const lastUs = history.length > 0 ? history[history.length - 1]!.timeUs : 0;
  const lease = leases ? new LeaseClock(leases) : undefined;
  const holds: Hold[] = [];
  const byGrant = new Map<string, Hold>();
  /** The open (not yet ended) hold of each process+lock, for histories without grant ids. */
  const openByProcLock = new Map<string, Hold>();
  /** Holds not yet ended, in order of acquire-ok (a crash closes its targets' ones). */
  const open = new Set<Hold>();
  /** Every hold of each process+lock in order of start, for matching ops in imported histories. */
  const allByProcLock = new Map<string, Hold[]>();

  // Walk events in order so "the first end" is well defined.
  for (const e of history) {
    if (lease) for (const h of lease.endedBy(e)) closeHold(h, { index: e.index - 0.5, timeUs: h.leaseEndUs! } as HistoryEvent, "lease", openByProcLock, open);
    lease?.see(e, openByProcLock.get(key(e.process, e.lock)));
    if (e.type === "ok" && e.f === "acquire") {
      const h = holdAt(e);
      lease?.granted(h, e);
      const grantId = h.grantId;
      holds.push(h);
      byGrant.set(grantId, h);
      openByProcLock.set(key(e.process, e.lock), h);
      open.add(h);
      const all = allByProcLock.get(key(e.process, e.lock));
      if (all) all.push(h);
      else allByProcLock.set(key(e.process, e.lock), [h]);
      continue;
    }
    const grantOf = (ev: HistoryEvent): Hold | undefined => {
      const g = (ev.value as { grantId?: string } | undefined)?.grantId;
      return g !== undefined ? byGrant.get(g) : openByProcLock.get(key(ev.process, ev.lock));
    };
    if (e.type === "invoke" && e.f === "release") {
      const h = grantOf(e);
      if (h) closeHold(h, e, "release", openByProcLock, open);
    } else if (e.f === "lapse" && e.type !== "invoke") {
      const h = grantOf(e);
      if (h) closeHold(h, e, "lapse", openByProcLock, open);
    } else if (e.process === NEMESIS && semanticsOf(e.f).losesVolatileState === true) {
      const v = e.value as { phase?: string; targets?: string[] } | undefined;
      if (v?.phase === "start") {
        const targets = new Set(v.targets ?? []);
        for (const h of [...open]) if (targets.has(h.process)) closeHold(h, e, "crash", openByProcLock, open);
      }
    }
  }
  for (const h of open) h.endUs = lastUs;

  stretchByOps(history, byGrant, allByProcLock);
  return holds;
}

/**
 * Stretch by the operations done under each grant, in a second pass now that every
 * hold's end of belief is known: to the completion of an ok read, write or extend (a
 * refused extend is not acting under the grant), to the invoke of a read or write that
 * failed, is unknown or never completed. The hold ends at the latest of these, as when
 * each op was applied in turn; nothing is kept per op.
 */
function stretchByOps(history: readonly HistoryEvent[], byGrant: Map<string, Hold>, allByProcLock: Map<string, Hold[]>): void {
  const holdOf = (invoke: HistoryEvent): Hold | undefined => {
    const g = (invoke.value as { grantId?: string } | undefined)?.grantId;
    // Imported history: the latest hold of this process on this lock that started before the op.
    return g !== undefined ? byGrant.get(g) : latestStartedBy(allByProcLock.get(key(invoke.process, invoke.lock)), invoke.timeUs);
  };
  const stretch = (h: Hold | undefined, actedUntil: HistoryEvent): void => {
    if (h) h.acted = true;
    if (h && h.endIndex !== Infinity && actedUntil.index > h.endIndex) {
      h.endIndex = actedUntil.index;
      h.endUs = Math.max(h.endUs, actedUntil.timeUs);
      h.stretched = true;
    }
  };
  const readOrWrite = (invoke: HistoryEvent): boolean => invoke.f === "read" || invoke.f === "write";
  forEachPair(
    history,
    (invoke, complete) => {
      if (complete.type === "ok") {
        if (readOrWrite(invoke) || invoke.f === "extend") stretch(holdOf(invoke), complete);
      } else if (readOrWrite(invoke)) stretch(holdOf(invoke), invoke);
    },
    (invoke) => {
      if (readOrWrite(invoke)) stretch(holdOf(invoke), invoke);
    },
  );
}

/** The hold an acquire-ok begins: open, not yet acted under. */
function holdAt(e: HistoryEvent): Hold {
  const v = (e.value ?? {}) as { grantId?: string; token?: number; validityMs?: number };
  return {
    process: e.process,
    lock: e.lock ?? "",
    grantId: v.grantId ?? `${e.process}@${e.index}`,
    token: typeof v.token === "number" ? v.token : undefined,
    startUs: e.timeUs,
    endUs: Infinity,
    endedBy: "end-of-history",
    acquireIndex: e.index,
    endIndex: Infinity,
    stretched: false,
    acted: false,
    validAtGrant: !(typeof v.validityMs === "number" && v.validityMs <= 0),
  };
}

function closeHold(h: Hold, at: HistoryEvent, by: Hold["endedBy"], openByProcLock: Map<string, Hold>, open: Set<Hold>): void {
  if (h.endUs !== Infinity) return;
  h.endUs = at.timeUs;
  h.endIndex = at.index;
  h.endedBy = by;
  open.delete(h);
  if (openByProcLock.get(key(h.process, h.lock)) === h) openByProcLock.delete(key(h.process, h.lock));
}

/** The last of `hs` (in order of start) that started at or before `atUs` (binary search). */
function latestStartedBy(hs: readonly Hold[] | undefined, atUs: number): Hold | undefined {
  if (!hs) return undefined;
  let lo = 0;
  let hi = hs.length; // first index with startUs > atUs
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (hs[mid]!.startUs <= atUs) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? hs[lo - 1] : undefined;
}

/** What LiveHolds tells its reader as the stream goes. */
export interface HoldEvents {
  /** A new hold, with the holds of its lock open when it began (its own client's too). */
  granted?(h: Hold, open: ReadonlySet<Hold>): void;
  /** A closed hold was acted under after its end: it now ends at `toIndex`, not `fromIndex`. */
  stretched?(h: Hold, fromIndex: number, toIndex: number): void;
  /** The hold ended (release, lapse or crash); it may still be stretched until retired. */
  closed?(h: Hold): void;
  /** The hold can change no more (its client asked for the lock again, crashed, or the history ended). */
  retired?(h: Hold): void;
}

/**
 * computeHolds over a stream, in one pass: a hold starts at acquire-ok and ends at the
 * same events; an act under a grant stretches it at once (at the act's invoke for a
 * read or write, which ends no earlier; at its ok for an extend, or for a read or write
 * that succeeded). Held: the open holds, and each client's last closed hold per lock,
 * which it may still act under until it asks for a lock again or crashes (then it is
 * retired). An act under a grant already retired is counted in `unresolved`: lockstep's
 * workload never does that; imported histories are judged in batch.
 */
export class LiveHolds {
  total = 0;
  unresolved = 0;
  lastUs = 0;
  readonly locks = new Set<string>();
  private readonly byGrant = new Map<string, Hold>();
  /**
   * Per client, its latest hold per lock (open or closed, not retired). By client, so
   * that asking for any lock retires the client's closed holds: the map then holds the
   * live holds, not every lock each client has ever had (clients × locks at scale).
   */
  private readonly latest = new Map<string, Map<string, Hold>>();
  private readonly openByLock = new Map<string, Set<Hold>>();
  /** Per lock, its closed holds not yet retired (the ones an act may still stretch). */
  private readonly closedByLock = new Map<string, Set<Hold>>();
  private readonly pairer = new Pairer((invoke, complete) => {
    if (complete.type === "ok" && (invoke.f === "read" || invoke.f === "write" || invoke.f === "extend")) this.act(invoke, complete);
  });

  constructor(private readonly on: HoldEvents) {}

  push(e: HistoryEvent): void {
    this.lastUs = e.timeUs;
    if (e.type === "ok" && e.f === "acquire") this.grant(e);
    else if (e.type === "invoke" && e.f === "release") this.close(this.holdOf(e), e, "release");
    else if (e.f === "lapse" && e.type !== "invoke") this.close(this.holdOf(e), e, "lapse");
    else if (e.process === NEMESIS && semanticsOf(e.f).losesVolatileState === true) this.crash(e);
    // A client that asks for a lock again acts under none of its closed grants any more.
    if (e.type === "invoke" && e.f === "acquire") for (const h of this.latest.get(e.process)?.values() ?? []) if (h.endIndex !== Infinity) this.retire(h);
    if (e.type === "invoke" && (e.f === "read" || e.f === "write")) this.act(e, e);
    this.pairer.push(e);
  }

  /** The history ended: open holds end at its last event, and every hold is retired. */
  finish(): void {
    for (const set of this.openByLock.values()) for (const h of set) h.endUs = this.lastUs;
    for (const h of [...this.byGrant.values()]) this.retire(h);
  }

  /** Closed holds not yet retired, of one lock. */
  stretchable(lock: string): Iterable<Hold> {
    return this.closedByLock.get(lock) ?? [];
  }

  openOf(lock: string): ReadonlySet<Hold> {
    return this.openByLock.get(lock) ?? new Set();
  }

  private holdOf(e: HistoryEvent): Hold | undefined {
    const g = (e.value as { grantId?: string } | undefined)?.grantId;
    return g !== undefined ? this.byGrant.get(g) : this.latest.get(e.process)?.get(e.lock ?? "");
  }

  private grant(e: HistoryEvent): void {
    const h = holdAt(e);
    const lock = h.lock;
    this.total++;
    this.locks.add(lock);
    const open = this.openByLock.get(lock) ?? new Set<Hold>();
    this.openByLock.set(lock, open);
    this.on.granted?.(h, open);
    open.add(h);
    let mine = this.latest.get(h.process);
    if (mine === undefined) this.latest.set(h.process, (mine = new Map()));
    const before = mine.get(lock);
    if (before && before.endIndex !== Infinity) this.retire(before);
    mine.set(lock, h);
    this.byGrant.set(h.grantId, h);
  }

  private close(h: Hold | undefined, at: HistoryEvent, by: Hold["endedBy"]): void {
    if (!h || h.endIndex !== Infinity) return;
    h.endUs = at.timeUs;
    h.endIndex = at.index;
    h.endedBy = by;
    this.openByLock.get(h.lock)?.delete(h);
    let closed = this.closedByLock.get(h.lock);
    if (closed === undefined) this.closedByLock.set(h.lock, (closed = new Set()));
    closed.add(h);
    this.on.closed?.(h);
    // A client acts under its latest grant only: an older one, once closed, is done.
    if (this.latest.get(h.process)?.get(h.lock) !== h) this.retire(h);
  }

  private crash(e: HistoryEvent): void {
    const v = e.value as { phase?: string; targets?: string[] } | undefined;
    if (v?.phase !== "start") return;
    const targets = new Set(v.targets ?? []);
    for (const h of [...this.byGrant.values()]) {
      if (!targets.has(h.process)) continue;
      this.close(h, e, "crash");
      // A crashed client comes back without its grants: nothing acts under them again.
      this.retire(h);
    }
  }

  private retire(h: Hold): void {
    if (this.byGrant.get(h.grantId) !== h) return;
    this.byGrant.delete(h.grantId);
    this.closedByLock.get(h.lock)?.delete(h);
    const mine = this.latest.get(h.process);
    if (mine?.get(h.lock) === h) {
      mine.delete(h.lock);
      if (mine.size === 0) this.latest.delete(h.process);
    }
    this.on.retired?.(h);
  }

  /** An act under a grant: the hold is acted under, and stretched to `until` if it had ended before. */
  private act(invoke: HistoryEvent, until: HistoryEvent): void {
    const h = this.holdOf(invoke);
    if (!h) {
      if ((invoke.value as { grantId?: string } | undefined)?.grantId !== undefined) this.unresolved++;
      return;
    }
    h.acted = true;
    if (h.endIndex === Infinity || until.index <= h.endIndex) return;
    const fromIndex = h.endIndex;
    h.endIndex = until.index;
    h.endUs = Math.max(h.endUs, until.timeUs);
    h.stretched = true;
    this.on.stretched?.(h, fromIndex, until.index);
  }
}

/** A client and lock, as one map key. */
function key(p: string, l: string | undefined): string {
  return `${p}\u0000${l ?? ""}`;
}
