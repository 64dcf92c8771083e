import { describe, expect, it } from "vitest";
import { PendingCalls } from "../../sim/pending-calls.js";

/** sim/pending-calls.ts: a process's outstanding calls by rpcId (issue 17's replacement for a Map). */
const call = (rpcId: number) => ({ rpcId });

describe("PendingCalls", () => {
  it("finds, replaces and forgets calls by rpcId", () => {
    const p = new PendingCalls<{ rpcId: number }>();
    const a = call(1);
    p.set(a);
    expect(p.get(1)).toBe(a);
    expect(p.get(2)).toBeUndefined();
    p.delete(2); // not there: nothing happens
    expect(p.get(1)).toBe(a);
    p.delete(1);
    expect(p.get(1)).toBeUndefined();
  });

  it("keeps calls whose ids share a slot apart (the table grows), whatever their order", () => {
    const p = new PendingCalls<{ rpcId: number }>();
    // 8 slots at first: 1, 9, 17 and 1025 all map to slot 1 until the table is big enough.
    const ids = [1, 9, 17, 1025, 2, 3, 4, 5, 6, 7, 8];
    const calls = ids.map(call);
    for (const c of calls) p.set(c);
    for (const c of calls) expect(p.get(c.rpcId)).toBe(c);
    // A look-up by an id that shares a slot with a live one must not find the other call.
    expect(p.get(33)).toBeUndefined();
    p.delete(9);
    expect(p.get(9)).toBeUndefined();
    expect(p.get(1)).toBe(calls[0]);
    expect(p.get(17)).toBe(calls[2]);
  });

  it("still finds every call when ids far apart clash at the largest table (the overflow)", () => {
    const p = new PendingCalls<{ rpcId: number }>();
    // 1 and 1 + 2^16 and 1 + 2^17 share a slot at any size up to 2^16.
    const calls = [1, 1 + (1 << 16), 1 + (1 << 17), 5].map(call);
    for (const c of calls) p.set(c);
    for (const c of calls) expect(p.get(c.rpcId)).toBe(c);
    p.delete(1 + (1 << 16));
    expect(p.get(1 + (1 << 16))).toBeUndefined();
    expect(p.get(1 + (1 << 17))).toBe(calls[2]);
    expect(p.get(1)).toBe(calls[0]);
  });

  it("holds thousands of outstanding calls as a Map would", () => {
    const p = new PendingCalls<{ rpcId: number }>();
    const m = new Map<number, { rpcId: number }>();
    // A deterministic mix of sets and deletes over a window of ids.
    let x = 7;
    for (let id = 1; id <= 5000; id++) {
      const c = call(id);
      p.set(c);
      m.set(id, c);
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      const gone = id - (x % 300);
      if (gone > 0) {
        p.delete(gone);
        m.delete(gone);
      }
    }
    for (let id = 1; id <= 5000; id++) expect(p.get(id)).toBe(m.get(id));
  });
});
