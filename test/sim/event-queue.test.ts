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
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 700 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 50 }),
        (times, later) => {
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
        },
      ),
    );
  });

  it("a cancelled event does not run and is not counted; a slot reused by a later event is not cancelled by a stale handle", () => {
    const q = new EventQueue();
    const out: string[] = [];
    const rec = (s: string): void => void out.push(s);
    const tok = {};
    const slot = q.push(5, rec, "cancelled", tok);
    q.push(7, rec, "kept");
    expect(q.length).toBe(2);
    expect(q.cancel(slot, tok)).toBe(true);
    expect(q.length).toBe(1);
    expect(q.peekTimeUs()).toBe(7);
    // Twice is a no-op.
    expect(q.cancel(slot, tok)).toBe(false);
    drain(q);
    expect(out).toEqual(["kept"]);
    // The freed slot goes to the next event; the old handle (other token) must not touch it.
    expect([q.push(9, rec, "new1", {}), q.push(10, rec, "new2", {})]).toContain(slot);
    expect(q.cancel(slot, tok)).toBe(false);
    drain(q);
    expect(out).toEqual(["kept", "new1", "new2"]);
  });

  it("with random cancellations (past the re-heap threshold, and from handlers), the rest run in (time, seq) order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.boolean()), { maxLength: 600 }),
        fc.array(fc.integer({ min: 0, max: 599 }), { maxLength: 40 }),
        (items, cancelFromHandler) => {
          const q = new EventQueue();
          const popped: number[] = [];
          const handles: Array<{ slot: number; tok: object; cancelled: boolean }> = [];
          let k = 0;
          const rec = (id: number): void => {
            popped.push(id);
            // Some handlers cancel a later event, as a reply cancels its call's timeout.
            if (k < cancelFromHandler.length) {
              const h = handles[cancelFromHandler[k++]! % Math.max(1, handles.length)];
              if (h && q.cancel(h.slot, h.tok)) h.cancelled = true;
            }
          };
          items.forEach(([t], id) => {
            const tok = {};
            handles.push({ slot: q.push(t, rec, id, tok), tok, cancelled: false });
          });
          items.forEach(([, cancel], id) => {
            if (cancel && q.cancel(handles[id]!.slot, handles[id]!.tok)) handles[id]!.cancelled = true;
          });
          expect(q.length).toBe(handles.filter((h) => !h.cancelled).length);
          drain(q);
          const kept = items.map(([t], id) => ({ t, id })).filter(({ id }) => !handles[id]!.cancelled);
          kept.sort((a, b) => a.t - b.t || a.id - b.id);
          expect(popped).toEqual(kept.map((e) => e.id));
          expect(q.peekTimeUs()).toBe(Infinity);
        },
      ),
    );
  });
});
