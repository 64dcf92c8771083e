import type { HistoryEvent } from "../sim/history.js";
import { LiveHolds, type Hold } from "./holds.js";
import { MutualExclusionVerdict, isNeverHeld } from "./mutual-exclusion.js";
import type { CheckResult, OnlineChecker } from "./types.js";

/**
 * Mutual exclusion over a stream, in memory bounded by the clients and the holds one
 * lapsed holder can still reach. A pair of holds of one lock by two clients overlaps
 * when the later one's acquire-ok comes before the earlier one ends (checkers/holds.ts:
 * its release, lapse or crash, stretched by any act under the grant after it). So a
 * pair is counted either when the later grant arrives while the earlier hold is open,
 * or when a closed hold is stretched from its end E to X: then it overlaps every other
 * client's hold started in (E, X].
 *
 * Held: the live holds (LiveHolds), and per lock the holds started since the earliest
 * end a hold not yet retired could be stretched from. An act under a retired grant, or
 * a stretch reaching back past WINDOW_MAX holds, makes a pass "unknown".
 *
 * A grant that came already expired and was never acted under overlaps nothing
 * (isNeverHeld); whether a hold is one is final only when it is retired, so pairs that
 * involve such a grant wait on it until then.
 */
const WINDOW_MAX = 100_000;
const PRUNE_EVERY = 16;

export class OnlineMutualExclusion implements OnlineChecker {
  private readonly verdict = new MutualExclusionVerdict();
  private readonly holds = new LiveHolds({
    granted: (h, open) => this.granted(h, open),
    stretched: (h, fromIndex, toIndex) => this.stretchedOver(h, fromIndex, toIndex),
    retired: (h) => this.finalize(h),
  });
  /** Per lock, holds in order of start, kept while a closed hold could still be stretched back over them. */
  private readonly window = new Map<string, Hold[]>();
  /** Per lock, the latest start of a hold dropped from the window. */
  private readonly droppedUpTo = new Map<string, number>();
  private windowLost = false;
  /** Pairs waiting on a hold's never-held status (only holds not valid at grant). */
  private readonly pending = new Map<Hold, Array<[Hold, Hold]>>();
  /** Holds that can change no more (retired, or the history ended). */
  private readonly final = new WeakSet<Hold>();

  push(e: HistoryEvent): void {
    this.holds.push(e);
  }

  result(): CheckResult {
    this.holds.finish();
    const r = this.verdict.result(this.holds.total, this.holds.locks.size);
    if (r.valid !== true || r.skipped || (!this.windowLost && this.holds.unresolved === 0)) return r;
    const why = this.windowLost
      ? `a lapsed holder acted after more than ${WINDOW_MAX} later grants of its lock`
      : `${this.holds.unresolved} act(s) came under a grant whose client had asked for the lock again`;
    return {
      ...r,
      valid: "unknown",
      summary: `no overlapping holds found, but ${why}: online checking cannot place them; check the history in batch (lockstep check)`,
    };
  }

  private granted(h: Hold, open: ReadonlySet<Hold>): void {
    for (const a of open) if (a.process !== h.process) this.pair(a, h);
    this.remember(h);
  }

  /** Every other client's hold of the lock started in (fromIndex, toIndex] now overlaps h. */
  private stretchedOver(h: Hold, fromIndex: number, toIndex: number): void {
    if ((this.droppedUpTo.get(h.lock) ?? -1) > fromIndex) this.windowLost = true;
    for (const b of this.window.get(h.lock) ?? []) {
      if (b.acquireIndex <= fromIndex) continue;
      if (b.acquireIndex > toIndex) break;
      if (b.process !== h.process) this.pair(h, b);
    }
  }

  /** Keep h for stretches; drop the holds no stretchable hold can reach back to. */
  private remember(h: Hold): void {
    const list = this.window.get(h.lock) ?? [];
    this.window.set(h.lock, list);
    list.push(h);
    // Looked at every PRUNE_EVERY grants of the lock (a lock's stretchable holds are few):
    // every 256th kept up to 256 holds of each of 1000 locks for nothing.
    if (list.length % PRUNE_EVERY !== 0) return;
    let reach = Infinity;
    for (const s of this.holds.stretchable(h.lock)) reach = Math.min(reach, s.endIndex);
    let drop = 0;
    while (drop < list.length && (list[drop]!.acquireIndex <= reach || list.length - drop > WINDOW_MAX)) drop++;
    if (drop === 0) return;
    this.droppedUpTo.set(h.lock, Math.max(this.droppedUpTo.get(h.lock) ?? -1, list[drop - 1]!.acquireIndex));
    list.splice(0, drop);
  }

  private pair(a: Hold, b: Hold): void {
    if (this.settled(a) && this.settled(b)) {
      if (!isNeverHeld(a) && !isNeverHeld(b)) this.verdict.add(a, b);
      return;
    }
    for (const h of [a, b]) {
      if (this.settled(h)) continue;
      const waiting = this.pending.get(h);
      if (waiting) waiting.push([a, b]);
      else this.pending.set(h, [[a, b]]);
    }
  }

  /** Whether h's never-held status is known: a grant valid when given never is one; others once retired. */
  private settled(h: Hold): boolean {
    return h.validAtGrant || this.final.has(h);
  }

  /** h can change no more: its never-held status is final, and the pairs that waited on it are settled. */
  private finalize(h: Hold): void {
    if (this.final.has(h)) return;
    this.final.add(h);
    for (const [a, b] of this.pending.get(h) ?? []) {
      if (this.settled(a) && this.settled(b) && !isNeverHeld(a) && !isNeverHeld(b)) this.verdict.add(a, b);
    }
    this.pending.delete(h);
  }
}
