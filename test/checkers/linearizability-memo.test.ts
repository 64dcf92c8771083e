import { describe, expect, it } from "vitest";
import { Memo, NO_HOLES, sameHoles } from "../../checkers/linearizability/memo.js";

const eq = (a: string, b: string): boolean => a === b;
const sameInfo = (a: string[] | null, b: string[] | null): boolean => JSON.stringify(a) === JSON.stringify(b);

describe("linearizability memo", () => {
  it("finds a configuration again only when every part is equal", () => {
    const memo = new Memo<string, string[] | null>(eq, sameInfo);
    expect(memo.addIfNew(7, 1, 3, 2, 0, NO_HOLES, "s", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 0, NO_HOLES, "s", null)).toBe(false);
    // Each part on its own makes another configuration.
    expect(memo.addIfNew(7, 2, 3, 2, 0, NO_HOLES, "s", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 4, 2, 0, NO_HOLES, "s", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 1, 0, NO_HOLES, "s", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 0, 5, "s", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 0, [5, 6], "s", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 0, [5, 6], "s", null)).toBe(false);
    expect(memo.addIfNew(7, 1, 3, 2, 0, NO_HOLES, "t", null)).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 1, NO_HOLES, "s", ["a"])).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 1, NO_HOLES, "s", ["b"])).toBe(true);
    expect(memo.addIfNew(7, 1, 3, 2, 1, NO_HOLES, "s", ["a"])).toBe(false);
    expect(memo.entries).toBe(9);
  });

  it("keeps keys apart that share a slot, and finds every entry after the table grows", () => {
    const memo = new Memo<string, null>(eq, () => true);
    // Keys 2^20 apart share a slot in any table smaller than 2^20 slots; unsigned keys above 2^31 too.
    const keys = Array.from({ length: 5000 }, (_, i) => ((i % 50) * (1 << 20) + Math.floor(i / 50) + (i % 2 ? 2 ** 31 : 0)) >>> 0);
    for (const k of keys) expect(memo.addIfNew(k, 0, 0, 0, 0, NO_HOLES, "s", null)).toBe(true);
    for (const k of keys) expect(memo.addIfNew(k, 0, 0, 0, 0, NO_HOLES, "s", null)).toBe(false);
    expect(memo.entries).toBe(keys.length);
  });

  it("compares holes as none, one rank, or several", () => {
    expect(sameHoles(NO_HOLES, NO_HOLES)).toBe(true);
    expect(sameHoles(3, 3)).toBe(true);
    expect(sameHoles(3, [3])).toBe(false);
    expect(sameHoles([3, 4], [3, 4])).toBe(true);
    expect(sameHoles([3, 4], [3, 5])).toBe(false);
    expect(sameHoles([3], [3, 4])).toBe(false);
  });
});
