import { describe, expect, it } from "vitest";
import type { HistoryEvent } from "../../sim/history.js";
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
    const a = runAvailability(handover, 1);
    expect(a.grants).toBe(2);
    expect(a.failedAcquires).toBe(0);
    // 0..10 (c1 waits, nobody holds) + 100..150 (c1 released, c2 still waiting).
    expect(a.idleWhileWaitingUs).toBe(60);
  });

  it("is challenged when a second client is granted within nearMs of another's hold, and not beyond", () => {
    // c2's grant comes 50 µs after c1's hold ended.
    expect(runAvailability(handover, 0.05).challenged).toBe(true);
    expect(runAvailability(handover, 0.049).challenged).toBe(false);
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
    const a = runAvailability(gaveUp, 30_000);
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
    const a = runAvailability(alone, 30_000);
    expect(a.challenged).toBe(false);
    expect(a.grants).toBe(2);
    expect(a.failedAcquires).toBe(1);
    // 0..10, 40..50 (c1 waiting) and 80..90 (c2 waiting), nobody holding.
    expect(a.idleWhileWaitingUs).toBe(30);
  });

  it("sums over runs and over shards alike", () => {
    const r1 = runAvailability(handover, 1);
    const r2 = { grants: 1, failedAcquires: 3, idleWhileWaitingUs: 7, challenged: false };
    const all = addRunAvailability(addRunAvailability(emptySweepAvailability(), r1), r2);
    expect(all).toEqual({ grants: 3, failedAcquires: 3, idleWhileWaitingUs: 67, challengedRuns: 1 });
    const shards = addSweepAvailability(addRunAvailability(emptySweepAvailability(), r1), addRunAvailability(emptySweepAvailability(), r2));
    expect(shards).toEqual(all);
  });
});
