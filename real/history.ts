// The history of a real run, assembled by the driver from the clients' stamped events and
// its own (faults, storage writes), in lockstep's format (sim/history.ts), so the same
// checkers and reports read it.
//
//  - Order: by run time (CLOCK_MONOTONIC µs since t0), ties in arrival order. A client's
//    own events arrive in the order it stamped them, so its order is kept.
//  - End: events stamped after the run's end are dropped (the simulator stops at its end
//    too; an operation cut off there stays without its completion, i.e. unknown).
//  - Lapses: the simulator notes `lapse` when a client's clock passes its grant's expiry,
//    even while the client is paused. A stopped process notes nothing, so the client
//    reports each grant's expiry (and each extension's) and the lapse is placed here, after
//    the run: at the expiry in force, if the client had not invoked release by then.
//  - The final read of the resource comes last, as in the simulator.
import type { EventType, HistoryEvent } from "../sim/history.js";
import { NEMESIS } from "../sim/history.js";

type Pending = Omit<HistoryEvent, "index">;

interface GrantTrack {
  process: string;
  lock?: string;
  /** Expiry updates in order of report: the acquire's, then each accepted extension's. */
  updates: Array<{ atUs: number; expiresAtUs: number }>;
}

export class RunHistory {
  private readonly events: Pending[] = [];

  private readonly grants = new Map<string, GrantTrack>();
  private readonly lockOfGrant = new Map<string, string | undefined>();

  add(process: string, timeUs: number, type: EventType, f: string, lock?: string, value?: unknown): void {
    const e: Pending = { timeUs: Math.round(timeUs), process, type, f };
    if (lock !== undefined) e.lock = lock;
    if (value !== undefined) e.value = value;
    this.events.push(e);
    if (f === "acquire" && type === "ok") {
      const g = (value as { grantId?: string } | undefined)?.grantId;
      if (g !== undefined) this.lockOfGrant.set(g, lock);
    }
  }

  nemesis(timeUs: number, f: string, value: Record<string, unknown>): void {
    this.add(NEMESIS, timeUs, "info", f, undefined, value);
  }

  grant(process: string, grantId: string, atUs: number, expiresAtUs: number): void {
    let t = this.grants.get(grantId);
    if (!t) {
      t = { process, updates: [] };
      this.grants.set(grantId, t);
    }
    if (t.process === process) t.updates.push({ atUs, expiresAtUs });
  }

  /** Events so far (unsorted), e.g. to count what a run recorded. */
  get size(): number {
    return this.events.length;
  }

  /**
   * The finished history: events up to endUs, the lapses, then `final` (the final reads,
   * stamped endUs), sorted and indexed.
   */
  finish(endUs: number, final: Array<{ process: string; f: string; lock: string; value: unknown }>): HistoryEvent[] {
    const kept = this.events.filter((e) => e.timeUs <= endUs);
    const releaseAt = new Map<string, number>();
    for (const e of kept) {
      if (e.f === "release" && e.type === "invoke") {
        const g = (e.value as { grantId?: string } | undefined)?.grantId;
        if (g !== undefined && !releaseAt.has(g)) releaseAt.set(g, e.timeUs);
      }
    }
    const lapses: Pending[] = [];
    for (const [grantId, t] of this.grants) {
      const lapseUs = lapseTime(t.updates);
      if (lapseUs === undefined || lapseUs > endUs) continue;
      const rel = releaseAt.get(grantId);
      if (rel !== undefined && rel <= lapseUs) continue;
      const lock = this.lockOfGrant.get(grantId);
      lapses.push({ timeUs: lapseUs, process: t.process, type: "info", f: "lapse", ...(lock !== undefined ? { lock } : {}), value: { grantId } });
    }
    // Stable sort: ties keep arrival order (lapses after the events stamped at the same µs).
    const ordered = [...kept, ...lapses].map((e, seq) => ({ e, seq })).sort((a, b) => a.e.timeUs - b.e.timeUs || a.seq - b.seq);
    const out: HistoryEvent[] = ordered.map(({ e }, index) => ({ index, ...e }));
    const lastUs = Math.max(endUs, out.length > 0 ? out[out.length - 1]!.timeUs : 0);
    for (const f of final) out.push({ index: out.length, timeUs: lastUs, process: f.process, type: "ok", f: f.f, lock: f.lock, value: f.value });
    return out.map((e) => orderKeys(e));
  }
}

/**
 * When the client's belief ran out: the first expiry not renewed before it passed. An
 * extension reported at or after the expiry in force came too late to count.
 */
export function lapseTime(updates: ReadonlyArray<{ atUs: number; expiresAtUs: number }>): number | undefined {
  if (updates.length === 0) return undefined;
  let current = updates[0]!.expiresAtUs;
  for (const u of updates.slice(1)) {
    if (u.atUs < current) current = u.expiresAtUs;
    else break;
  }
  return current;
}

/** The key order sim histories have (index, timeUs, process, type, f, lock, value). */
function orderKeys(e: HistoryEvent): HistoryEvent {
  const o: HistoryEvent = { index: e.index, timeUs: e.timeUs, process: e.process, type: e.type, f: e.f };
  if (e.lock !== undefined) o.lock = e.lock;
  if (e.value !== undefined) o.value = e.value;
  return o;
}
