/**
 * The challenge a run is held to when its scenario names none: derived from what the
 * run did, as its history shows it (the nemesis' events and whom they reached), so that
 * a correct lock can meet it. Overlapping beliefs are what a correct lock prevents, so
 * they stay the evidence of unsafety (an unsafe run is challenged whatever the rule), not
 * the test of whether the run tested anything.
 *
 * - A fault reached a client (pause, partition, cut, clock step...): "client-fault-contended"
 *   — a fault on a client that held or waited for a lock lasted a whole lease (its TTL, or
 *   the session timeout) from its start while another client held or wanted that lock:
 *   the holder's lease or session could run out under it, which is what a lock must
 *   survive; or the lock changed hands by expiry ("expiry-handover").
 * - Faults reached only servers: "server-fault-during-hold" — a server fault was active
 *   while a client held a lock and another held or wanted it.
 * - No fault: "waiter-served" — a client was granted a lock it had asked for while
 *   another held it.
 * A fault that never reached a holder or waiter meets nothing: such a run stays "not
 * challenged". Judged as the history streams (batch feeds the whole history), with the
 * rule chosen at its end from the faults seen.
 */
import { NEMESIS, type FaultValue, type HistoryEvent } from "../sim/history.js";
import { applyFault, endsAll, endsLostState, losesState, movesCalmOnly } from "./fault-semantics.js";
import { timeText } from "./time-text.js";

export type DerivedRule = "client-fault-contended" | "server-fault-during-hold" | "waiter-served";

export interface Met {
  count: number;
  first?: string;
}

const sec = timeText;

/** Who holds and who wants each lock, as the stream goes (a hold is a belief: acquire-ok to release invoke, lapse or crash). */
class Contention {
  readonly clients = new Set<string>();
  /** lock -> client -> since when it held it. */
  readonly holders = new Map<string, Map<string, number>>();
  /** lock -> client -> since when its acquire is in flight. */
  readonly wanting = new Map<string, Map<string, number>>();
  readonly ttlMsOf = new Map<string, number>();
  /**
   * When who holds or wants a lock last changed: a rule met between events is met from
   * then (or from a lease's end, if later), so the time told does not depend on which
   * other events (servers' notes) the history happens to hold.
   */
  changedUs = 0;

  push(e: HistoryEvent): void {
    if (e.process === NEMESIS) return this.crash(e);
    const lock = e.lock ?? "lock";
    if (e.type === "invoke") this.clients.add(e.process);
    if (e.f === "acquire" || e.f === "release" || e.f === "lapse") this.changedUs = e.timeUs;
    if (e.f === "acquire" && e.type === "invoke") {
      at(this.wanting, lock).set(e.process, e.timeUs);
      const t = (e.value as { ttlMs?: unknown } | undefined)?.ttlMs;
      if (typeof t === "number") this.ttlMsOf.set(e.process, t);
    } else if (e.f === "acquire") {
      this.wanting.get(lock)?.delete(e.process);
      if (e.type === "ok") at(this.holders, lock).set(e.process, e.timeUs);
    } else if ((e.f === "release" && e.type === "invoke") || (e.f === "lapse" && e.type !== "invoke")) this.holders.get(lock)?.delete(e.process);
  }

  private crash(e: HistoryEvent): void {
    const v = e.value as FaultValue | undefined;
    if (!losesState(e.f) || v?.phase !== "start") return;
    this.changedUs = e.timeUs;
    for (const t of v.targets ?? []) for (const m of [...this.holders.values(), ...this.wanting.values()]) m.delete(t);
  }

  /** Locks `client` holds or wants now. */
  stakes(client: string): string[] {
    const out: string[] = [];
    for (const [lock, m] of this.holders) if (m.has(client)) out.push(lock);
    for (const [lock, m] of this.wanting) if (m.has(client) && !out.includes(lock)) out.push(lock);
    return out;
  }

  /** Another client than `client` holding or wanting `lock` now, if any. */
  rival(lock: string, client: string): string | undefined {
    for (const m of [this.holders.get(lock), this.wanting.get(lock)]) for (const c of m?.keys() ?? []) if (c !== client) return c;
    return undefined;
  }
}

/**
 * The processes a fault reached: for a split into groups, every group but the largest
 * (isolating a leader lists everyone on its cut links as targets, but reaches the
 * leader); else its targets.
 */
function reachedBy(v: FaultValue | undefined): string[] {
  const groups = (v as { groups?: unknown } | undefined)?.groups;
  if (Array.isArray(groups) && groups.length > 1 && groups.every((g) => Array.isArray(g))) {
    const sorted = [...(groups as string[][])].sort((a, b) => b.length - a.length);
    return sorted.slice(1).flat();
  }
  return v?.targets ?? [];
}

function at(m: Map<string, Map<string, number>>, k: string): Map<string, number> {
  let v = m.get(k);
  if (!v) m.set(k, (v = new Map()));
  return v;
}

interface Stake {
  client: string;
  lock: string;
  /** When its lease (or session) runs out under the fault, at the latest. */
  expiryUs: number;
  sinceUs: number;
  kind: string;
  met: boolean;
}

/** Every derived rule's instances, found as the history streams; the rule is chosen at the end. */
export class DerivedChallenge {
  private readonly who = new Contention();
  /** Faults active per target process (a client or a server), by kind. */
  private readonly active = new Map<string, Map<string, number>>();
  private readonly stakes: Stake[] = [];
  /** Every process a fault reached: which were clients is known only at the end. */
  private readonly reached = new Set<string>();
  /** Server-fault instances by the process faulted, kept until the end says it was no client. */
  private readonly serverCandidates: Array<{ process: string; why: () => string }> = [];
  private readonly own: Record<DerivedRule, Met> = {
    "client-fault-contended": { count: 0 },
    "server-fault-during-hold": { count: 0 },
    "waiter-served": { count: 0 },
  };

  constructor(private readonly ttl: { ttlMs?: number; sessionTimeoutMs?: number } = {}) {}

  push(e: HistoryEvent): void {
    this.lastUs = e.timeUs;
    this.checkStakes(e.timeUs);
    if (e.process === NEMESIS) this.fault(e);
    this.served(e);
    this.noteRelease(e);
    this.who.push(e);
    this.addStakes(e.timeUs);
    this.checkStakes(e.timeUs);
    this.serverDuringHold(e);
  }

  /** Each rule's instances, once the history has ended (a server fault counts only on a process that never acted as a client). */
  get met(): Record<DerivedRule, Met> {
    const servers = this.serverCandidates.filter((c) => !this.who.clients.has(c.process));
    return { ...this.own, "server-fault-during-hold": { count: servers.length, ...(servers[0] ? { first: servers[0].why() } : {}) } };
  }

  /** The rule the faults seen call for, and why. */
  rule(): { rule: DerivedRule; why: string } {
    const clients = [...this.reached].filter((p) => this.who.clients.has(p));
    const servers = [...this.reached].filter((p) => !this.who.clients.has(p));
    if (clients.length > 0) return { rule: "client-fault-contended", why: `faults reached clients (${clients.join(", ")})` };
    if (servers.length > 0) return { rule: "server-fault-during-hold", why: `faults reached only servers (${servers.join(", ")})` };
    return { rule: "waiter-served", why: "the run had no faults" };
  }

  private ttlUsOf(client: string): number {
    return (this.ttl.sessionTimeoutMs ?? this.who.ttlMsOf.get(client) ?? this.ttl.ttlMs ?? Infinity) * 1000;
  }

  private fault(e: HistoryEvent): void {
    const v = e.value as FaultValue | undefined;
    if ((v as { phase?: unknown } | undefined)?.phase === "skipped") return;
    if (endsAll(e.f)) return void this.active.clear();
    const targets = reachedBy(v);
    if (v?.phase !== "end" && !endsLostState(e.f)) for (const t of targets) this.reached.add(t);
    // A clock's step or rate change acts at one instant: it reaches a holder for the rest of its hold.
    if (movesCalmOnly(e.f)) return this.instant(e, targets);
    for (const t of targets) {
      const kinds = this.active.get(t) ?? new Map<string, number>();
      this.active.set(t, kinds);
      applyFault(kinds, e.f, v?.phase);
    }
  }

  /** A clock step or rate change reaches a client's holds and waits of that moment, for as long as it holds. */
  private instant(e: HistoryEvent, targets: readonly string[]): void {
    for (const process of targets) this.serverFaultAt(process, e.timeUs);
    for (const client of targets)
      for (const lock of this.who.stakes(client)) {
        this.touched.add(`${client}\u0000${lock}`);
        this.stakes.push({ client, lock, expiryUs: e.timeUs, sinceUs: e.timeUs, kind: e.f, met: false });
      }
  }

  private faultOn(process: string): string | undefined {
    for (const [kind, n] of this.active.get(process) ?? []) if (n > 0) return kind;
    return undefined;
  }

  /** A client under a fault that holds or wants a lock: its lease runs out a TTL after the fault began (or after it came). */
  private addStakes(nowUs: number): void {
    for (const client of this.active.keys()) {
      const kind = this.faultOn(client);
      if (kind === undefined || !this.who.clients.has(client)) continue;
      for (const lock of this.who.stakes(client)) {
        this.touched.add(`${client}\u0000${lock}`);
        if (this.stakes.some((s) => s.client === client && s.lock === lock)) continue;
        const expiryUs = nowUs + this.ttlUsOf(client);
        this.stakes.push({ client, lock, expiryUs, sinceUs: nowUs, kind, met: false });
      }
    }
  }

  /**
   * A stake whose fault has outlasted its lease, with a rival for the lock now: met, from
   * the later of the lease's end and the last change of who holds or wants (the state
   * read now has held since then). A stake whose fault ended is dropped (and kept as the
   * nearest miss if it was never met).
   */
  private checkStakes(nowUs: number): void {
    for (let i = 0; i < this.stakes.length;) {
      const s = this.stakes[i]!;
      const still = movesCalmOnly(s.kind) ? this.who.holders.get(s.lock)?.has(s.client) === true : this.faultOn(s.client) !== undefined;
      if (!still) {
        if (!s.met) this.missed(s, nowUs);
        this.stakes.splice(i, 1);
        continue;
      }
      const rival = nowUs >= s.expiryUs && !s.met ? this.who.rival(s.lock, s.client) : undefined;
      if (rival !== undefined) {
        s.met = true;
        const atUs = Math.max(s.expiryUs, this.who.changedUs);
        this.note(
          "client-fault-contended",
          () =>
            `a ${s.kind} reached ${s.client} while it held or wanted ${s.lock} (from ${sec(s.sinceUs)}) and outlasted its lease, while ${rival} held or wanted it (at ${sec(atUs)})`,
        );
      }
      i++;
    }
  }

  /**
   * The longest fault on a holder or waiter that met nothing (one still on runs to the
   * history's end), told when nothing met: what the run did instead of a challenge.
   */
  nearestMiss(): string | undefined {
    let best = this.miss;
    for (const s of this.stakes)
      if (!s.met && !movesCalmOnly(s.kind) && (!best || this.lastUs - s.sinceUs > best.spanUs))
        best = { stake: s, endUs: this.lastUs, runEnded: true, spanUs: this.lastUs - s.sinceUs };
    if (!best) return undefined;
    const { stake: s, endUs } = best;
    const lease = Number.isFinite(s.expiryUs) ? `a whole lease (${sec(s.expiryUs - s.sinceUs)})` : "a lease (none known)";
    const how =
      endUs < s.expiryUs
        ? `${best.runEnded ? "the run" : "it"} ended before ${lease} had passed`
        : `it outlasted ${lease}, but no other client held or wanted ${s.lock} then`;
    return `a ${s.kind} reached ${s.client} while it held or wanted ${s.lock}, from ${sec(s.sinceUs)} to ${sec(endUs)}: ${how}`;
  }
  private miss: { stake: Stake; endUs: number; runEnded: boolean; spanUs: number } | undefined;
  private lastUs = 0;
  private missed(s: Stake, endUs: number): void {
    if (movesCalmOnly(s.kind) || endUs - s.sinceUs <= (this.miss?.spanUs ?? -1)) return;
    this.miss = { stake: s, endUs, runEnded: false, spanUs: endUs - s.sinceUs };
  }

  private readonly serverMet = new Set<string>();
  private serverDuringHold(e: HistoryEvent): void {
    for (const [process, kinds] of this.active) if ([...kinds.values()].some((n) => n > 0)) this.serverFaultAt(process, e.timeUs);
  }

  /** A fault on `process` now (kept until the end tells whether it was a server): a hold with a rival meets the server rule. */
  private serverFaultAt(process: string, timeUs: number): void {
    if (this.who.clients.has(process)) return;
    for (const [lock, holders] of this.who.holders)
      for (const holder of holders.keys()) {
        const rival = this.who.rival(lock, holder);
        const key = `${process}\u0000${lock}\u0000${holder}\u0000${holders.get(holder)}`;
        if (rival === undefined || this.serverMet.has(key)) continue;
        this.serverMet.add(key);
        this.serverCandidates.push({
          process,
          why: () => `a fault on ${process} was active at ${sec(timeUs)} while ${holder} held ${lock} and ${rival} wanted it`,
        });
      }
  }

  /**
   * waiter-served: a grant to a client that asked while another held the lock. Where a
   * fault reached the waiter during its wait, or reached the holder during its hold and
   * was still on at the grant, the lock was served across the fault: that meets the
   * client-fault rule too. A fault on the holder that ended inside its lease does not: a
   * pause shorter than the TTL cannot show a lease lock unsafe, whatever the waiter did.
   */
  private served(e: HistoryEvent): void {
    if (e.f !== "acquire" || e.type !== "ok") return;
    const lock = e.lock ?? "lock";
    const since = this.who.wanting.get(lock)?.get(e.process);
    if (since === undefined) return;
    const holder = [...(this.who.holders.get(lock) ?? new Map<string, number>())].find(([c]) => c !== e.process)?.[0];
    const released = this.lastHolder.get(lock);
    const other = holder ?? (released && released.untilUs > since && released.client !== e.process ? released.client : undefined);
    const waiterTouched = this.touched.delete(`${e.process}\u0000${lock}`);
    if (other === undefined) return;
    this.note("waiter-served", () => `${e.process} asked for ${lock} at ${sec(since)} while ${other} held it, and was granted it at ${sec(e.timeUs)}`);
    const onHolder = this.faultOn(other);
    const holderTouched = (holder !== undefined ? this.touched.has(`${holder}\u0000${lock}`) : released?.touched === true) && onHolder !== undefined;
    if (waiterTouched)
      this.note(
        "client-fault-contended",
        () => `${e.process}, reached by a fault while it waited, was granted ${lock} at ${sec(e.timeUs)}: the lock was served across the fault`,
      );
    else if (holderTouched)
      this.note(
        "client-fault-contended",
        () =>
          `${e.process} was granted ${lock} at ${sec(e.timeUs)} while a ${onHolder} on ${other}, which held it, was still on: the lock was served across the fault`,
      );
  }

  /** Clients a fault reached while they held or wanted a lock (client and lock), until that wait or hold ends. */
  private readonly touched = new Set<string>();
  private readonly lastHolder = new Map<string, { client: string; untilUs: number; touched: boolean }>();
  /** The last hold of each lock, so a grant after a release still saw the holder it waited behind. */
  private noteRelease(e: HistoryEvent): void {
    if (!((e.f === "release" && e.type === "invoke") || (e.f === "lapse" && e.type !== "invoke"))) return;
    const lock = e.lock ?? "lock";
    if (!this.who.holders.get(lock)?.has(e.process)) return;
    const touched = this.touched.delete(`${e.process}\u0000${lock}`);
    this.lastHolder.set(lock, { client: e.process, untilUs: e.timeUs, touched });
  }

  private note(rule: DerivedRule, why: () => string): void {
    const m = this.own[rule];
    m.count++;
    m.first ??= why();
  }
}
