import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { EventQueue } from "../../sim/event-queue.js";

describe("EventQueue", () => {
  const drain = (q: EventQueue): void => {
    while (q.length) q.runNext();
  };

  it("pops by time, then by insertion order at equal times", () => {
    const q = new EventQueue();
    const out: string[] = [];
    const rec = (s: string): void => void out.push(s);
    q.push(5, rec, "b5");
    q.push(1, rec, "a1");
    q.push(5, rec, "c5");
    q.push(3, rec, "x3");
    q.push(5, rec, "d5");
    expect(q.peekTimeUs()).toBe(1);
    drain(q);
    expect(out).toEqual(["a1", "x3", "b5", "c5", "d5"]);
    expect(q.peekTimeUs()).toBe(Infinity);
  });

  it("hands a handler its four arguments", () => {
    const q = new EventQueue();
    const got: unknown[] = [];
    q.push(7, (a, b, c, d) => got.push(a, b, c, d), "a", { b: 1 }, undefined, 42);
    drain(q);
    expect(got).toEqual(["a", { b: 1 }, undefined, 42]);
  });

  it("matches a stable sort of (time, seq) on random inputs, past its initial capacity, with pushes from handlers", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 700 }), fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 50 }), (times, later) => {
        const q = new EventQueue();
        const popped: Array<[number, number]> = [];
        let nextId = 0;
        const expected: Array<[number, number]> = [];
        let nowUs = 0;
        const rec = (t: number, id: number): void => {
          nowUs = t;
          popped.push([t, id]);
          // The first events schedule more, at or after their own time (as handlers do).
          if (id < later.length) {
            const at = t + later[id]!;
            const nid = nextId++;
            expected.push([at, nid]);
            q.push(at, rec, at, nid);
          }
        };
        for (const t of times) {
          const id = nextId++;
          expected.push([t, id]);
          q.push(t, rec, t, id);
        }
        drain(q);
        expect(nowUs).toBeGreaterThanOrEqual(0);
        expected.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        expect(popped).toEqual(expected);
      }),
    );
  });
});
