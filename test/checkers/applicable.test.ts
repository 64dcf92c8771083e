/** Which model a history gets, which checkers apply to it, and which ops its model cannot judge. */
import { describe, expect, it } from "vitest";
import { modelForHistory, notApplicable, unsupportedOp } from "../../checkers/applicable.js";
import type { HistoryEvent } from "../../sim/history.js";

const h = (...ops: Array<[string, string, unknown?]>): HistoryEvent[] =>
  ops.map(([process, f, value], index) => ({ index, timeUs: index, process, type: "invoke", f, ...(value !== undefined ? { value } : {}) }));

describe("modelForHistory", () => {
  it.each([
    [h(["0", "acquire"], ["0", "read"]), {}, "mutex"],
    [h(["0", "acquire"]), { ttlMs: 100 }, "lease-lock"],
    [h(["0", "read"], ["1", "cas", [1, 2]]), {}, "cas-register"],
    [h(["0", "read"], ["1", "write", 3]), {}, "register"],
    [h(["nemesis", "acquire"], ["0", "write", 1]), {}, "register"],
    [h(["0", "write", 1]), { model: "mutex" }, "mutex"],
    [[], {}, "mutex"],
  ])("%j with %j is %s", (history, ctx, model) => {
    expect(modelForHistory(history, ctx)).toBe(model);
  });
});

describe("unsupportedOp", () => {
  it("names the first op the model lacks, and a cas without [from to]", () => {
    expect(unsupportedOp(h(["0", "write", 1], ["1", "append", 2]), "register")).toMatchObject({ index: 1, f: "append" });
    expect(unsupportedOp(h(["0", "acquire"]), "cas-register")).toMatchObject({ index: 0, f: "acquire" });
    expect(unsupportedOp(h(["0", "cas", 5]), "cas-register")).toMatchObject({ index: 0, expected: expect.stringContaining("[from to]") });
    expect(unsupportedOp(h(["0", "cas", [1, 2]], ["0", "read"], ["0", "write", 1]), "cas-register")).toBeUndefined();
    // Notes of the nemesis and the storage are not client ops.
    expect(unsupportedOp(h(["nemesis", "partition"], ["storage", "storage-write"], ["0", "acquire"]), "mutex")).toBeUndefined();
  });
});

describe("notApplicable", () => {
  it("register histories get linearizability alone; liveness needs a TTL", () => {
    for (const c of ["mutual-exclusion", "lost-updates", "fencing", "liveness"]) expect(notApplicable(c, "register", [], {})).toMatch(/lock checker/);
    expect(notApplicable("linearizability", "register", [], {})).toBeUndefined();
    expect(notApplicable("liveness", "lock", h(["0", "acquire"]), {})).toMatch(/no TTL known/);
    expect(notApplicable("liveness", "lock", h(["0", "acquire"]), { ttlMs: 100 })).toBeUndefined();
    expect(notApplicable("liveness", "lock", h(["0", "acquire", { ttlMs: 100 }]), {})).toBeUndefined();
    expect(notApplicable("mutual-exclusion", "lock", [], {})).toBeUndefined();
    // A checker this module does not know about (added later) applies.
    expect(notApplicable("replica-agreement", "register", [], {})).toBeUndefined();
  });
});
