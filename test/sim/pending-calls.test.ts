import { describe, expect, it } from "vitest";
import { PendingCalls } from "../../sim/pending-calls.js";
import type { FiberStep } from "../../sim/fiber.js";

/** sim/pending-calls.ts: a process's outstanding calls by rpcId (issue 17's replacement for a Map). */
const run = (): FiberStep => ({ step: () => {} });

describe("PendingCalls", () => {
  it("takes a call out once, with its timeout's slot; an id not pending gives nothing", () => {
    const p = new PendingCalls();
    const a = run();
    p.set(1, a, 42);
    expect(p.take(2)).toBeUndefined();
    expect(p.take(1)).toBe(a);
    expect(p.takenTimerSlot).toBe(42);
    expect(p.take(1)).toBeUndefined();
  });

  it("keeps calls whose ids share a slot apart (the table grows), whatever their order", () => {
    const p = new PendingCalls();
    // 8 slots at first: 1, 9, 17 and 1025 all map to slot 1 until the table is big enough.
    const ids = [1, 9, 17, 1025, 2, 3, 4, 5, 6, 7, 8];
    const runs = ids.map(run);
    ids.forEach((id, i) => p.set(id, runs[i]!, 100 + i));
    // An id that shares a slot with a live one must not find the other call.
    expect(p.take(33)).toBeUndefined();
    expect(p.take(9)).toBe(runs[1]);
    expect(p.takenTimerSlot).toBe(101);
    ids.forEach((id, i) => {
      if (id === 9) return;
      expect(p.take(id)).toBe(runs[i]);
      expect(p.takenTimerSlot).toBe(100 + i);
    });
  });

  it("still finds every call when ids far apart clash at the largest table (the overflow)", () => {
    const p = new PendingCalls();
    // 1, 1 + 2^16 and 1 + 2^17 share a slot at any size up to 2^16.
    const ids = [1, 1 + (1 << 16), 1 + (1 << 17), 5];
    const runs = ids.map(run);
    ids.forEach((id, i) => p.set(id, runs[i]!, i));
    // Setting an id again replaces it, in the table or the overflow: still four waiting.
    p.set(1 + (1 << 17), runs[2]!, 2);
    p.set(5, runs[3]!, 3);
    expect(p.count).toBe(4);
    expect(p.take(1 + (1 << 16))).toBe(runs[1]);
    expect(p.takenTimerSlot).toBe(1);
    expect(p.take(1 + (1 << 16))).toBeUndefined();
    expect(p.take(1 + (1 << 17))).toBe(runs[2]);
    expect(p.takenTimerSlot).toBe(2);
    expect(p.take(1)).toBe(runs[0]);
    expect(p.take(5)).toBe(runs[3]);
    expect(p.count).toBe(0);
  });

  it("holds thousands of outstanding calls as a Map would", () => {
    const p = new PendingCalls();
    const m = new Map<number, FiberStep>();
    // A deterministic mix of sets and takes over a window of ids.
    let x = 7;
    for (let id = 1; id <= 5000; id++) {
      const r = run();
      p.set(id, r, id % 1000);
      m.set(id, r);
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      const gone = id - (x % 300);
      if (gone > 0) {
        expect(p.take(gone)).toBe(m.get(gone));
        m.delete(gone);
      }
      // The count is the Map's size (ProcessContext.handle skips replies when it is 0).
      expect(p.count).toBe(m.size);
    }
    for (let id = 1; id <= 5000; id++) {
      expect(p.take(id)).toBe(m.get(id));
      if (m.has(id)) expect(p.takenTimerSlot).toBe(id % 1000);
      m.delete(id);
      expect(p.count).toBe(m.size);
    }
    expect(p.count).toBe(0);
  });
});
