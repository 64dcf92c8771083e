import { describe, expect, it } from "vitest";
import { PeerTable } from "../../services/raft/core/peer-table.js";

/** PeerTable (the leader's per-peer numbers by position) against the Map it replaced. */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const PEERS = ["n1", "n2", "n3", "n4", "n5"];

/** The Map's entries in peer order (the table's documented order). */
function inPeerOrder(m: Map<string, number>): Array<[string, number]> {
  return PEERS.filter((p) => m.has(p)).map((p) => [p, m.get(p)!]);
}

describe("PeerTable", () => {
  it("holds what a Map keyed by peer name holds, through the slot and the name sides alike", () => {
    for (let seed = 1; seed <= 5; seed++) {
      const r = lcg(seed);
      // Names built afresh: equal strings, not the same objects as the table's.
      const t = new PeerTable(PEERS.map((p) => `n${p.slice(1)}`));
      const ref = new Map<string, number>();
      for (let step = 0; step < 5000; step++) {
        const i = Math.floor(r() * PEERS.length);
        const p = PEERS[i]!;
        const v = Math.floor(r() * 10);
        const op = r();
        if (op < 0.3) {
          t.setAt(t.indexOf(p), v);
          ref.set(p, v);
        } else if (op < 0.45) {
          t.set(p, v);
          ref.set(p, v);
        } else {
          const absent = -1 - Math.floor(r() * 3);
          expect(t.at(i, absent), `seed ${seed}, step ${step}`).toBe(ref.get(p) ?? absent);
          expect(t.get(p)).toBe(ref.get(p));
          expect(t.has(p)).toBe(ref.has(p));
        }
        expect(t.size).toBe(ref.size);
        if (step % 97 === 0) {
          expect([...t]).toEqual(inPeerOrder(ref));
          expect([...t.values()]).toEqual(inPeerOrder(ref).map(([, x]) => x));
          for (let k = 0; k <= 10; k++) expect(t.countAtLeast(k)).toBe([...ref.values()].filter((x) => x >= k).length);
        }
      }
    }
  });

  it("knows only members: indexOf is -1 and get undefined for others, and setting one throws", () => {
    const t = new PeerTable(PEERS);
    expect(t.indexOf("n6")).toBe(-1);
    expect(t.indexOf("n3")).toBe(2);
    expect(t.get("n6")).toBeUndefined();
    expect(t.has("n6")).toBe(false);
    expect(() => t.set("n6", 1)).toThrow(/not a member/);
    expect(t.size).toBe(0);
  });

  it("clones into an independent table with the same entries", () => {
    const t = new PeerTable(PEERS);
    t.set("n2", 4).set("n5", 7);
    const c = t.clone();
    expect([...c]).toEqual([
      ["n2", 4],
      ["n5", 7],
    ]);
    t.set("n2", 9);
    t.set("n3", 1);
    expect([...c]).toEqual([
      ["n2", 4],
      ["n5", 7],
    ]);
    expect(c.size).toBe(2);
  });
});
