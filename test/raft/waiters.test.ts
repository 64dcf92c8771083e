import { describe, expect, it } from "vitest";
import { Waiters, type WaiterKind } from "../../services/raft/waiters.js";

/** Waiters (services/raft/waiters.ts) against a Map: slot clashes, growth, the overflow past the table's bound. */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe("Waiters", () => {
  it("takes out what was set, once, by id, with its kind, as a Map would, over ids handed out in order", () => {
    for (let seed = 1; seed <= 5; seed++) {
      const r = lcg(seed);
      const w = new Waiters<string>();
      const ref = new Map<number, [WaiterKind, string]>();
      let next = 1;
      for (let step = 0; step < 20000; step++) {
        if (r() < 0.5) {
          const id = next++;
          const kind: WaiterKind = r() < 0.5 ? "propose" : "read";
          w.set(id, kind, `cb${id}`);
          ref.set(id, [kind, `cb${id}`]);
        } else {
          // Mostly a recent id, sometimes an old one (stuck or long done), sometimes one never handed out.
          const id = r() < 0.8 ? next - 1 - Math.floor(r() * 12) : r() < 0.5 ? Math.floor(r() * next) : next + 5;
          const got = w.take(id);
          const want = ref.get(id);
          ref.delete(id);
          expect(got, `seed ${seed}, step ${step}, id ${id}`).toBe(want?.[1]);
          if (want) expect(w.takenKind).toBe(want[0]);
        }
      }
      for (const [id, [kind, cb]] of ref) {
        expect(w.take(id)).toBe(cb);
        expect(w.takenKind).toBe(kind);
      }
    }
  });

  it("keeps a long-stuck waiter through growth and past the table's bound (the overflow)", () => {
    const w = new Waiters<number>();
    w.set(1, "propose", 1);
    // Every id clashes with 1 once per table size: the table doubles to its bound, then overflows.
    for (let id = 2; id <= 70000; id++) {
      w.set(id, "read", id);
      if (id % 3 !== 0) expect(w.take(id)).toBe(id);
    }
    expect(w.take(1)).toBe(1);
    expect(w.takenKind).toBe("propose");
    expect(w.take(1)).toBeUndefined();
    for (let id = 3; id <= 70000; id += 3) {
      expect(w.take(id)).toBe(id);
      expect(w.takenKind).toBe("read");
    }
  });
});
