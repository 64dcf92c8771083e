import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { EventQueue } from "../../sim/event-queue.js";

describe("EventQueue", () => {
  it("pops by time, then by insertion order at equal times", () => {
    const q = new EventQueue();
    const out: string[] = [];
    q.push(5, () => out.push("b5"));
    q.push(1, () => out.push("a1"));
    q.push(5, () => out.push("c5"));
    q.push(3, () => out.push("x3"));
    q.push(5, () => out.push("d5"));
    while (q.length) q.pop()!.run();
    expect(out).toEqual(["a1", "x3", "b5", "c5", "d5"]);
  });

  it("matches a stable sort of (time, seq) on random inputs", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 200 }), (times) => {
        const q = new EventQueue();
        times.forEach((t, i) => q.push(t, () => i));
        const popped: Array<[number, number]> = [];
        while (q.length) {
          const e = q.pop()!;
          popped.push([e.timeUs, e.seq]);
        }
        const expected = times.map((t, i) => [t, i] as [number, number]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        expect(popped).toEqual(expected);
      }),
    );
  });
});
