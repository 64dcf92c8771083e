import { describe, expect, it } from "vitest";
import { bySequence } from "../../designs/raft-zk/lock.js";
import { sequenceOf } from "../../designs/raft-zk/tree.js";

/** bySequence (the recipe's order of a lock's children) against a stable sort by sequence number, on many random child lists. */
describe("bySequence on random children", () => {
  it("is the filter-then-stable-sort it replaces, ties and unnumbered names included", () => {
    let x = 11;
    const r = () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const name = (): string => {
      const seq = String(Math.floor(r() * 20)).padStart(10, "0");
      switch (Math.floor(r() * 4)) {
        case 0:
          return `lock-${seq}`;
        case 1:
          return `_c_${Math.floor(r() * 1e6).toString(16)}-lock-${seq}`;
        case 2:
          return `lock-${seq.slice(3)}`; // too short: no sequence
        default:
          return `x${Math.floor(r() * 5)}`;
      }
    };
    for (let round = 0; round < 500; round++) {
      const kids = Array.from({ length: Math.floor(r() * 25) }, name);
      const reference = kids.filter((c) => !Number.isNaN(sequenceOf(c))).sort((a, b) => sequenceOf(a) - sequenceOf(b));
      expect(bySequence(kids), kids.join(" ")).toEqual(reference);
    }
  });
});
