import { describe, expect, it } from "vitest";
import { bySequence } from "../../designs/raft-zk/lock.js";
import { sequenceOf } from "../../designs/raft-zk/tree.js";

/**
 * The recipe's order of a lock's children: by sequence number, names without one left
 * out, equal numbers in the order listed, as the filter-then-sort it replaced gave.
 */
describe("bySequence", () => {
  it("orders by the number, drops unnumbered names, keeps ties in listed order", () => {
    const kids = ["lock-0000000010", "x", "_c_ab-lock-0000000002", "lock-0000000002", "lock-0000000001", "lock-12"];
    expect(bySequence(kids)).toEqual(["lock-0000000001", "_c_ab-lock-0000000002", "lock-0000000002", "lock-0000000010"]);
    const reference = kids.filter((c) => !Number.isNaN(sequenceOf(c))).sort((a, b) => sequenceOf(a) - sequenceOf(b));
    expect(bySequence(kids)).toEqual(reference);
    expect(bySequence([])).toEqual([]);
  });
});
