import type { Checker, CheckResult } from "./types.js";
import { computeHolds, sharedHolds, type Hold } from "./holds.js";
import { STEPS_FLAG, STEPS_MAX_DEFAULT } from "./budget.js";

/**
 * Mutual exclusion: two clients' holds of one lock overlapping is a violation; the
 * witness is both holds and the overlap. Overlap is judged in the history's order (a
 * hold that ended before another's acquire-ok was recorded does not overlap it, and one
 * that ended after does, even at the same microsecond): the simulator records events
 * as they happen in true time, which only it knows — the linearizability checker
 * judges from what clients observed alone.
 *
 * Per lock, holds are swept in order of start. The holds still active when a hold
 * starts sit in a min-heap by end, with a count per process, so the number of
 * overlapping pairs is counted in O(n log n) without listing them. Witnesses (the
 * first WITNESSES_MAX pairs, in order of the later hold's start, then the earlier
 * hold's start) are listed by scanning the holds started before; each scan finds at
 * least one, so there are at most WITNESSES_MAX scans. Every heap push, pop and
 * scanned hold is one step; past `stepsMax` the sweep stops and the verdict is
 * "unknown" (or `false`, if an overlap was already found), saying how far it got.
 */
export interface Overlap {
  lock: string;
  first: Hold;
  second: Hold;
  overlapStartUs: number;
  overlapEndUs: number;
  /** A sentence for the report. */
  sentence: string;
}

const WITNESSES_MAX = 20;
export const MUTUAL_EXCLUSION_STEPS_MAX = STEPS_MAX_DEFAULT;

export interface MutualExclusionOptions {
  /** Work bound: heap operations plus holds scanned for witnesses (ctx.stepsMax wins). */
  stepsMax?: number;
}

export function mutualExclusionWith(opts: MutualExclusionOptions = {}): Checker {
  return (history, ctx) => {
    const stepsMax = ctx.stepsMax ?? opts.stepsMax ?? MUTUAL_EXCLUSION_STEPS_MAX;
    const holds = ctx.holdsEndAtLease ? computeHolds(history, { ttlMs: ctx.ttlMs, clockDriftPpmMax: ctx.clockDriftPpmMax }) : sharedHolds(history);
    const byLock = new Map<string, Hold[]>();
    for (const h of holds) {
      const l = byLock.get(h.lock) ?? [];
      l.push(h);
      byLock.set(h.lock, l);
    }
    const verdict = new MutualExclusionVerdict();
    let steps = 0;
    let locksSwept = 0;
    let holdsSwept = 0;
    sweep: for (const [, hs] of [...byLock].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      hs.sort((a, b) => a.acquireIndex - b.acquireIndex);
      const active = new EndHeap();
      const activeByProcess = new Map<string, number>();
      for (let i = 0; i < hs.length; i++) {
        const h = hs[i]!;
        if (isNeverHeld(h)) {
          holdsSwept++;
          continue;
        }
        // Holds that ended before this one started (in the history's order) are over for
        // every later one too. A hold still open when the history ends never ends.
        while (active.size > 0 && active.peek()!.endIndex < h.acquireIndex) {
          if (++steps > stepsMax) break sweep;
          const a = active.pop()!;
          activeByProcess.set(a.process, activeByProcess.get(a.process)! - 1);
        }
        const others = active.size - (activeByProcess.get(h.process) ?? 0);
        verdict.count(others);
        if (others > 0 && verdict.wantsWitnesses()) {
          for (let j = 0; j < i && verdict.wantsWitnesses(); j++) {
            if (++steps > stepsMax) break sweep;
            const a = hs[j]!;
            if (a.endIndex < h.acquireIndex || a.process === h.process || isNeverHeld(a)) continue;
            verdict.witness(a, h);
          }
        }
        if (++steps > stepsMax) break sweep;
        active.push(h);
        activeByProcess.set(h.process, (activeByProcess.get(h.process) ?? 0) + 1);
        holdsSwept++;
      }
      locksSwept++;
    }
    if (steps <= stepsMax) return verdict.result(holds.length, byLock.size, { steps });
    const explored = `swept ${holdsSwept} of ${holds.length} holds (${locksSwept} of ${byLock.size} lock(s) complete) before the work bound of ${stepsMax} steps; raise it with ${STEPS_FLAG} N`;
    return verdict.result(holds.length, byLock.size, { steps: stepsMax, stepsMax, locksSwept, holdsSwept }, explored);
  };
}

/**
 * A grant that came already expired (node-redlock v5 returns such a lock), ended at once
 * and not acted under was never held, so it overlaps nothing.
 */
export function isNeverHeld(h: Hold): boolean {
  return !h.validAtGrant && !h.acted && h.endedBy !== "end-of-history" && h.endUs <= h.startUs;
}

/**
 * The verdict from the overlapping pairs: their number, and the first WITNESSES_MAX in
 * order of lock, then the later hold's start, then the earlier's (whatever order they
 * are found in). Shared by the batch sweep and the online checker.
 */
export class MutualExclusionVerdict {
  private pairs = 0;
  private readonly witnesses: Array<[Hold, Hold]> = [];

  count(n: number): void {
    this.pairs += n;
  }

  wantsWitnesses(): boolean {
    return this.witnesses.length < WITNESSES_MAX;
  }

  /** One overlapping pair, counted and offered as a witness. */
  add(first: Hold, second: Hold): void {
    this.pairs++;
    this.witness(first, second);
  }

  witness(first: Hold, second: Hold): void {
    const w = this.witnesses;
    let i = w.length;
    while (i > 0 && pairBefore(first, second, w[i - 1]!)) i--;
    if (i >= WITNESSES_MAX) return;
    w.splice(i, 0, [first, second]);
    if (w.length > WITNESSES_MAX) w.pop();
  }

  /** `explored`: how far a sweep stopped by its budget got (the count is then a floor). */
  result(holdsTotal: number, locks: number, extraStats: Record<string, number> = {}, explored?: string): CheckResult {
    const count = this.pairs;
    const exhausted = explored !== undefined;
    const overlaps = this.witnesses.map(([a, h]) => overlapOf(a, h));
    const involved = new Set(overlaps.flatMap((o) => [o.first, o.second]));
    const stats: Record<string, number> = { holds: holdsTotal, locks, overlaps: count, ...extraStats };
    if (count === 0) {
      if (exhausted) return { checker: "mutual-exclusion", valid: "unknown", summary: `no overlapping holds found, but ${explored}`, stats };
      if (holdsTotal === 0)
        return { checker: "mutual-exclusion", valid: true, summary: "no client ever held a lock: nothing to judge", skipped: "no holds", stats };
      return { checker: "mutual-exclusion", valid: true, summary: `${holdsTotal} holds of ${locks} lock(s), none overlapping`, stats };
    }
    return {
      checker: "mutual-exclusion",
      valid: false,
      // One stale holder overlapping many later holds is one story, not many: say both numbers.
      summary:
        count === 1 && !exhausted
          ? `2 holds overlap: ${overlaps[0]!.sentence}`
          : `${count}${exhausted ? " or more" : ""} pairs of overlapping holds${count <= WITNESSES_MAX && !exhausted ? ` among ${involved.size} holds` : ""}` +
            // The budget can run out between counting an overlap and listing its pair.
            (overlaps.length > 0 ? `; first: ${overlaps[0]!.sentence}` : "; the budget ran out before the pair was listed") +
            (exhausted ? ` (${explored})` : ""),
      witness: overlaps,
      stats,
    };
  }
}

/** Whether pair (a, b) sorts before pair p: by lock, then the later hold's start, then the earlier's. */
function pairBefore(a: Hold, b: Hold, p: readonly [Hold, Hold]): boolean {
  if (b.lock !== p[1].lock) return b.lock < p[1].lock;
  if (b.acquireIndex !== p[1].acquireIndex) return b.acquireIndex < p[1].acquireIndex;
  return a.acquireIndex < p[0].acquireIndex;
}

export const mutualExclusion: Checker = mutualExclusionWith();

function overlapOf(a: Hold, h: Hold): Overlap {
  const lock = h.lock;
  const endUs = Math.min(a.endUs, h.endUs);
  return {
    lock,
    first: a,
    second: h,
    overlapStartUs: h.startUs,
    overlapEndUs: endUs,
    sentence:
      `${a.process} held ${lock} (grant ${a.grantId}${a.token !== undefined ? `, token ${a.token}` : ""}) from ${ms(a.startUs)} to ${ms(a.endUs)}` +
      `${a.stretched ? " (acting after its lease had lapsed)" : ""}, while ${h.process} held it (grant ${h.grantId}` +
      `${h.token !== undefined ? `, token ${h.token}` : ""}) from ${ms(h.startUs)}: both held it for ${ms(endUs - h.startUs)}.`,
  };
}

/** A binary min-heap of holds by the position of their end in the history. */
class EndHeap {
  private readonly a: Hold[] = [];
  get size(): number {
    return this.a.length;
  }
  peek(): Hold | undefined {
    return this.a[0];
  }
  push(h: Hold): void {
    const a = this.a;
    a.push(h);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]!.endIndex <= h.endIndex) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = h;
  }
  pop(): Hold | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && a[r]!.endIndex < a[l]!.endIndex ? r : l;
        if (a[c]!.endIndex >= last.endIndex) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

function ms(us: number): string {
  return `${(us / 1000).toFixed(3)} ms`;
}
