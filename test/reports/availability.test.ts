import { describe, expect, it } from "vitest";
import type { HistoryEvent } from "../../sim/history.js";
import { judgeChallenge } from "../../checkers/challenge.js";
import { addRunAvailability, addSweepAvailability, emptySweepAvailability, runAvailability } from "../../reports/availability.js";

/** A history from [timeUs, process, type, f, value?] rows, on one lock. */
function h(rows: Array<[number, string, HistoryEvent["type"], string, unknown?]>): HistoryEvent[] {
  return rows.map(([timeUs, process, type, f, value], index) => ({ index, timeUs, process, type, f, lock: "L", ...(value !== undefined ? { value } : {}) }));
}

// c1 waits 0..10 and holds 10..100; c2 waits 20..150 and holds 150..200.
const handover = h([
  [0, "c1", "invoke", "acquire"],
  [10, "c1", "ok", "acquire", { grantId: "c1#1", validityMs: 1, ttlMs: 1 }],
  [20, "c2", "invoke", "acquire"],
  [100, "c1", "invoke", "release", { grantId: "c1#1" }],
  [110, "c1", "ok", "release", { released: true }],
  [150, "c2", "ok", "acquire", { grantId: "c2#1", validityMs: 1, ttlMs: 1 }],
  [200, "c2", "invoke", "release", { grantId: "c2#1" }],
  [210, "c2", "ok", "release", { released: true }],
]);

describe("runAvailability", () => {
  it("counts grants and sums the time someone waited while nobody held the lock", () => {
    const a = runAvailability(handover, false);
    expect(a.grants).toBe(2);
    expect(a.failedAcquires).toBe(0);
    // 0..10 (c1 waits, nobody holds) + 100..150 (c1 released, c2 still waiting).
    expect(a.idleWhileWaitingUs).toBe(60);
  });

  it("carries the run's judged challenge: a hand-over after a release is not one by the default rule", () => {
    // c2's grant comes after c1 released: no two beliefs met (checkers/challenge.ts).
    const judged = judgeChallenge(handover, { kind: "overlapping-belief" });
    expect(judged.challenged).toBe(false);
    expect(runAvailability(handover, judged.challenged).challenged).toBe(false);
    expect(runAvailability(handover, true).challenged).toBe(true);
  });

  it("a second client that gives up leaves the run unchallenged, with its failed acquire counted", () => {
    const gaveUp = h([
      [0, "c1", "invoke", "acquire"],
      [10, "c1", "ok", "acquire", { grantId: "c1#1", validityMs: 1, ttlMs: 1 }],
      [20, "c2", "invoke", "acquire"],
      [60, "c2", "fail", "acquire", { reason: "retries exhausted" }],
      [100, "c1", "invoke", "release", { grantId: "c1#1" }],
      [110, "c1", "ok", "release", { released: true }],
    ]);
    const a = runAvailability(gaveUp, judgeChallenge(gaveUp, { kind: "overlapping-belief" }).challenged);
    expect(a).toEqual({ grants: 1, failedAcquires: 1, idleWhileWaitingUs: 10, challenged: false });
  });

  it("one client taking the lock again and again is not a challenge; an unknown acquire counts as failed", () => {
    const alone = h([
      [0, "c1", "invoke", "acquire"],
      [10, "c1", "ok", "acquire", { grantId: "c1#1", validityMs: 1, ttlMs: 1 }],
      [20, "c1", "invoke", "release", { grantId: "c1#1" }],
      [30, "c1", "ok", "release", { released: true }],
      [40, "c1", "invoke", "acquire"],
      [50, "c1", "ok", "acquire", { grantId: "c1#2", validityMs: 1, ttlMs: 1 }],
      [60, "c1", "invoke", "release", { grantId: "c1#2" }],
      [70, "c1", "ok", "release", { released: true }],
      [80, "c2", "invoke", "acquire"],
      [90, "c2", "info", "acquire", { reason: "timeout" }],
    ]);
    const a = runAvailability(alone, judgeChallenge(alone, { kind: "overlapping-belief" }).challenged);
    expect(a.challenged).toBe(false);
    expect(a.grants).toBe(2);
    expect(a.failedAcquires).toBe(1);
    // 0..10, 40..50 (c1 waiting) and 80..90 (c2 waiting), nobody holding.
    expect(a.idleWhileWaitingUs).toBe(30);
  });

  it("sums over runs and over shards alike", () => {
    const r1 = runAvailability(handover, false);
    const r2 = { grants: 1, failedAcquires: 3, idleWhileWaitingUs: 7, challenged: true };
    const all = addRunAvailability(addRunAvailability(emptySweepAvailability(), r1), r2);
    expect(all).toEqual({ grants: 3, failedAcquires: 3, idleWhileWaitingUs: 67, challengedRuns: 1 });
    const shards = addSweepAvailability(addRunAvailability(emptySweepAvailability(), r1), addRunAvailability(emptySweepAvailability(), r2));
    expect(shards).toEqual(all);
  });
});
