import { describe, expect, it } from "vitest";
import { Memo } from "../../checkers/linearizability/memo.js";

const NONE = new Int32Array(4);
const ONE = Int32Array.from([5, 0, 0]);
const TWO = Int32Array.from([5, 6, 0]);
const eq = (a: string, b: string): boolean => a === b;
const sameInfo = (a: string[] | null, b: string[] | null): boolean => JSON.stringify(a) === JSON.stringify(b);

describe("linearizability memo", () => {
  it("finds a configuration again only when every part is equal", () => {
    const memo = new Memo<string, string[] | null>(eq, sameInfo);
    expect(memo.addIfNew(7, 1, 3, 2, 0, NONE, 0, "s", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 0, NONE, 0, "s", null)).toBe(false);
    // Each part on its own makes another configuration.
    expect(memo.addIfNew(7, 2, 3, 2, 0, NONE, 0, "s", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 4, 2, 0, NONE, 0, "s", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 1, 0, NONE, 0, "s", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 0, ONE, 1, "s", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 0, TWO, 2, "s", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 0, TWO, 2, "s", null)).toBe(false);
    expect(memo.addIfNew(7, 1, 3, 2, 0, NONE, 0, "t", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 1, NONE, 0, "s", ["a"])).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 1, NONE, 0, "s", ["b"])).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 1, NONE, 0, "s", ["a"])).toBe(false);
    expect(memo.entries).toBe(9);
  });

  it("keeps keys apart that share a slot, and finds every entry after the table grows", () => {
    const memo = new Memo<string, null>(eq, () => true);
    // Keys 2^20 apart share a slot in any table smaller than 2^20 slots; unsigned keys above 2^31 too.
    const keys = Array.from({ length: 5000 }, (_, i) => ((i % 50) * (1 << 20) + Math.floor(i / 50) + (i % 2 ? 2 ** 31 : 0)) >>> 0);
    for (const k of keys) expect(memo.addIfNew(k, 0, 0, 0, 0, NONE, 0, "s", null)).toBe(true);
    for (const k of keys) expect(memo.addIfNew(k, 0, 0, 0, 0, NONE, 0, "s", null)).toBe(false);
    expect(memo.entries).toBe(keys.length);
  });

  it("compares holes by their count and ranks, not the scratch buffer past the count", () => {
    const memo = new Memo<string, null>(eq, () => true);
    expect(memo.addIfNew(1, 0, 5, 0, 0, Int32Array.from([2, 3, 9]), 2, "s", null)).toBe(true);
    expect(memo.addIfNew(1, 0, 5, 0, 0, Int32Array.from([2, 3, 7, 8]), 2, "s", null)).toBe(false);
    expect(memo.addIfNew(1, 0, 5, 0, 0, Int32Array.from([2, 4]), 2, "s", null)).toBe(true);
    expect(memo.addIfNew(1, 0, 5, 0, 0, Int32Array.from([2, 3, 9]), 3, "s", null)).toBe(true);
    expect(memo.addIfNew(1, 0, 5, 0, 0, Int32Array.from([2]), 1, "s", null)).toBe(true);
    // Many entries with holes: the pool grows and earlier entries' holes stay put.
    for (let i = 0; i < 3000; i++) expect(memo.addIfNew(2, i, 5, 0, 0, Int32Array.from([i, i + 1, i + 2]), 3, "s", null)).toBe(true);
    for (let i = 0; i < 3000; i++) expect(memo.addIfNew(2, i, 5, 0, 0, Int32Array.from([i, i + 1, i + 2]), 3, "s", null)).toBe(false);
    expect(memo.addIfNew(2, 0, 5, 0, 0, Int32Array.from([0, 1, 3]), 3, "s", null)).toBe(true);
  });
});
