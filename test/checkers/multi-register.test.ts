/**
 * Knossos' multi-register model: transactions of reads and writes over several
 * registers, in Knossos' EDN format; good histories valid, bad ones (a torn read, a
 * read of a value never written, a read before the write was invoked) invalid; the
 * search agrees with the brute-force oracle on small random ones.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseEdnHistory } from "../../checkers/import/edn.js";
import { linearizability } from "../../checkers/linearizability/index.js";
import { modelForHistory, unsupportedOp } from "../../checkers/applicable.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ednValue } from "../../checkers/import/edn-values.js";
import { MODEL_NAMES } from "../../checkers/linearizability/models/index.js";
import { modelNameFor } from "../../checkers/linearizability/index.js";
import { multiRegisterModel } from "../../checkers/linearizability/models/multi-register.js";
import { searchLinearization } from "../../checkers/linearizability/search.js";
import { bruteForceLinearizable } from "../../checkers/linearizability/brute-force.js";
import { pairOperations, type HistoryEvent } from "../../sim/history.js";

const op = (p: number, type: string, value: string) => `{:process ${p}, :type :${type}, :f :txn, :value ${value}}`;
const judge = (...lines: string[]) => {
  const h = parseEdnHistory(`[${lines.join("\n")}]`, "multi.edn");
  expect(modelForHistory(h, {})).toBe("multi-register");
  return linearizability(h, { model: "multi-register" }).valid;
};
const W = "[[:w :x 1] [:w :y 2]]";

describe("multi-register (Knossos)", () => {
  it("a transaction's writes are seen together, in order", () => {
    expect(judge(op(0, "invoke", W), op(0, "ok", W), op(1, "invoke", "[[:r :x nil] [:r :y nil]]"), op(1, "ok", "[[:r :x 1] [:r :y 2]]"))).toBe(true);
    // A read with nil checks nothing, as in Knossos.
    expect(judge(op(0, "invoke", W), op(0, "ok", W), op(1, "invoke", "[[:r :x nil]]"), op(1, "ok", "[[:r :x nil]]"))).toBe(true);
    // A read concurrent with the write may see it or not.
    expect(judge(op(0, "invoke", W), op(1, "invoke", "[[:r :x nil]]"), op(1, "ok", "[[:r :x 1]]"), op(0, "ok", W))).toBe(true);
  });

  it("a torn read, a value never written, and a read before the write began are invalid", () => {
    expect(judge(op(0, "invoke", W), op(0, "ok", W), op(1, "invoke", "[[:r :x nil] [:r :y nil]]"), op(1, "ok", "[[:r :x 1] [:r :y 0]]"))).toBe(false);
    expect(judge(op(0, "invoke", W), op(0, "ok", W), op(1, "invoke", "[[:r :y nil]]"), op(1, "ok", "[[:r :y 3]]"))).toBe(false);
    expect(judge(op(1, "invoke", "[[:r :x nil]]"), op(1, "ok", "[[:r :x 1]]"), op(0, "invoke", W), op(0, "ok", W))).toBe(false);
    // A write inside the reader's own transaction is seen by its later reads.
    expect(judge(op(1, "invoke", "[[:w :x 5] [:r :x nil]]"), op(1, "ok", "[[:w :x 5] [:r :x 5]]"))).toBe(true);
    expect(judge(op(1, "invoke", "[[:w :x 5] [:r :x nil]]"), op(1, "ok", "[[:w :x 5] [:r :x 4]]"))).toBe(false);
  });

  it("an info transaction's writes may have happened", () => {
    const lines = [op(0, "invoke", "[[:w :x 7]]"), op(0, "info", "[[:w :x 7]]"), op(1, "invoke", "[[:r :x nil]]"), op(1, "ok", "[[:r :x 7]]")];
    expect(judge(...lines)).toBe(true);
  });

  it("the search agrees with the brute-force oracle on small random histories", () => {
    const micro = fc.tuple(fc.constantFrom("r", "w"), fc.constantFrom("x", "y"), fc.integer({ min: 0, max: 2 }));
    const rawOp = fc.record({
      p: fc.integer({ min: 0, max: 2 }),
      txn: fc.array(micro, { minLength: 1, maxLength: 3 }),
      at: fc.integer({ min: 0, max: 20 }),
      dur: fc.integer({ min: 0, max: 8 }),
      info: fc.boolean(),
    });
    const seen = { valid: 0, invalid: 0 };
    fc.assert(
      fc.property(fc.array(rawOp, { minLength: 1, maxLength: 6 }), (raw) => {
        const evs: Array<Omit<HistoryEvent, "index"> & { k: number[] }> = [];
        raw.forEach((r, i) => {
          const value = r.txn.map(([f, reg, v]) => [f, reg, f === "w" ? v : null]);
          const done = r.txn.map(([f, reg, v]) => [f, reg, v]);
          evs.push({ timeUs: r.at, process: `c${i}`, type: "invoke", f: "txn", value, k: [r.at, 0, i] });
          if (!r.info) evs.push({ timeUs: r.at + r.dur, process: `c${i}`, type: "ok", f: "txn", value: done, k: [r.at + r.dur, 1, i] });
        });
        evs.sort((a, b) => a.k[0]! - b.k[0]! || a.k[1]! - b.k[1]! || a.k[2]! - b.k[2]!);
        const ops = pairOperations(evs.map(({ k: _k, ...e }, index) => ({ ...e, index }))).ops.filter((o) => multiRegisterModel.admits!(o));
        const expected = bruteForceLinearizable(multiRegisterModel, ops);
        seen[expected ? "valid" : "invalid"]++;
        return searchLinearization(multiRegisterModel, ops, { statesMax: 1e6, memoryMbMax: 256 }).valid === expected;
      }),
      { seed: 12, numRuns: 600 },
    );
    console.log(`multi-register: ${seen.valid} valid, ${seen.invalid} invalid`);
    expect(seen.valid).toBeGreaterThan(30);
    expect(seen.invalid).toBeGreaterThan(30);
  });
});

describe("multi-register as Knossos writes it (:read/:write, an initial value per register)", () => {
  const file = (name: string) => readFileSync(join(import.meta.dirname, "../fixtures/jepsen", name), "utf8");
  const judgeFile = (name: string, initialValue?: unknown) => {
    const h = parseEdnHistory(file(name), name);
    expect(modelForHistory(h, {})).toBe("multi-register");
    return linearizability(h, { model: "multi-register", ...(initialValue !== undefined ? { initialValue } : {}) });
  };
  const xy00 = ednValue("{:x 0 :y 0}");

  it("judges Knossos' form with the registers starting at x=0, y=0, as Knossos' test does", () => {
    expect(judgeFile("multi-register-knossos-ok.edn", xy00).valid).toBe(true);
    const bad = judgeFile("multi-register-knossos-bad.edn", xy00);
    expect(bad.valid).toBe(false);
    expect(bad.summary).toMatch(/:read :x 2\] \[:read :y 2\]/);
  });

  it("without the initial value the registers start at nil, so a read of 0 first is invalid", () => {
    expect(judgeFile("multi-register-knossos-ok.edn").valid).toBe(false);
  });

  it('registers not in the initial map start at nil; :x and "x" are two registers', () => {
    const h = (read: string) =>
      parseEdnHistory(
        `[{:process 0, :type :invoke, :f :txn, :value [[:read "x" nil]]} {:process 0, :type :ok, :f :txn, :value [[:read "x" ${read}]]}]`,
        "h.edn",
      );
    expect(linearizability(h("0"), { model: "multi-register", initialValue: xy00 }).valid).toBe(false);
    expect(linearizability(h("0"), { model: "multi-register", initialValue: ednValue('{"x" 0}') }).valid).toBe(true);
  });

  it("refuses an initial value that is not a map, naming the flag", () => {
    const h = parseEdnHistory(file("multi-register-knossos-ok.edn"), "ok.edn");
    expect(() => linearizability(h, { model: "multi-register", initialValue: 0 })).toThrow(/--initial-value: a map of register to value/);
  });

  it("refuses a micro-op other than :read, :write (and Jepsen's :r, :w), naming it", () => {
    const h = parseEdnHistory(
      `[{:process 0, :type :invoke, :f :txn, :value [[:append :x 1]]} {:process 0, :type :ok, :f :txn, :value [[:append :x 1]]}]`,
      "h.edn",
    );
    expect(unsupportedOp(h, "multi-register")?.expected).toMatch(/\[\[:read :x v\] \[:write :y v\] \.\.\.\]/);
  });
});

describe("every model in Knossos' model.clj is checked or refused by name", () => {
  it("checks register, cas-register, mutex and multi-register; refuses the others by name", () => {
    for (const m of ["register", "cas-register", "mutex", "multi-register"]) expect(MODEL_NAMES as readonly string[]).toContain(m);
    for (const m of ["set", "fifo-queue", "unordered-queue", "noop", "inconsistent"]) {
      expect(() => modelNameFor({ model: m })).toThrow(new RegExp(`Knossos' ${m} model`));
    }
  });

  it("a history of a Knossos model lockstep does not check is refused by its ops, naming the model", () => {
    const q = parseEdnHistory(`[{:process 0, :type :invoke, :f :enqueue, :value 1} {:process 0, :type :ok, :f :enqueue, :value 1}]`, "q.edn");
    expect(unsupportedOp(q, modelForHistory(q, {}))?.expected).toMatch(/Knossos' fifo-queue or unordered-queue model/);
    const s = parseEdnHistory(`[{:process 0, :type :invoke, :f :add, :value 1} {:process 0, :type :ok, :f :add, :value 1}]`, "s.edn");
    expect(unsupportedOp(s, modelForHistory(s, {}))?.expected).toMatch(/Knossos' set model/);
  });
});
