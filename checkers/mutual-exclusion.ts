import type { Checker } from "./types.js";
import { computeHolds, type Hold } from "./holds.js";

/**
 * Mutual exclusion: two clients' holds of one lock overlapping in true time is a
 * violation; the witness is both holds and the overlap. This uses true time, which
 * only a simulator knows — the linearizability checker judges from what clients
 * observed alone.
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

export const mutualExclusion: Checker = (history) => {
  const holds = computeHolds(history);
  const byLock = new Map<string, Hold[]>();
  for (const h of holds) {
    const l = byLock.get(h.lock) ?? [];
    l.push(h);
    byLock.set(h.lock, l);
  }
  const overlaps: Overlap[] = [];
  let count = 0;
  for (const [lock, hs] of [...byLock].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    hs.sort((a, b) => a.startUs - b.startUs || a.acquireIndex - b.acquireIndex);
    // Sweep: holds still active when each new hold starts.
    let active: Hold[] = [];
    for (const h of hs) {
      active = active.filter((a) => a.endUs > h.startUs);
      for (const a of active) {
        if (a.process === h.process) continue;
        count++;
        if (overlaps.length < WITNESSES_MAX) {
          const endUs = Math.min(a.endUs, h.endUs);
          overlaps.push({
            lock,
            first: a,
            second: h,
            overlapStartUs: h.startUs,
            overlapEndUs: endUs,
            sentence:
              `${a.process} held ${lock} (grant ${a.grantId}${a.token !== undefined ? `, token ${a.token}` : ""}) from ${ms(a.startUs)} to ${ms(a.endUs)}` +
              `${a.stretched ? " (acting after its lease had lapsed)" : ""}, while ${h.process} held it (grant ${h.grantId}` +
              `${h.token !== undefined ? `, token ${h.token}` : ""}) from ${ms(h.startUs)}: both held it for ${ms(endUs - h.startUs)}.`,
          });
        }
      }
      active.push(h);
    }
  }
  const involved = new Set(overlaps.flatMap((o) => [o.first, o.second]));
  const stats = { holds: holds.length, locks: byLock.size, overlaps: count };
  if (count === 0) {
    return { checker: "mutual-exclusion", valid: true, summary: `${holds.length} holds of ${byLock.size} lock(s), none overlapping`, stats };
  }
  return {
    checker: "mutual-exclusion",
    valid: false,
    // One stale holder overlapping many later holds is one story, not many: say both numbers.
    summary:
      count === 1
        ? `2 holds overlap: ${overlaps[0]!.sentence}`
        : `${count} pairs of overlapping holds${count <= WITNESSES_MAX ? ` among ${involved.size} holds` : ""}; first: ${overlaps[0]!.sentence}`,
    witness: overlaps,
    stats,
  };
};

function ms(us: number): string {
  return `${(us / 1000).toFixed(3)} ms`;
}
