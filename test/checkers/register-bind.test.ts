/**
 * The register model's rules bound to one sub-history (Model.bind, what the search calls)
 * must answer exactly as its step does, for every shape a value comes in: lockstep's own
 * `{value: n}` (read by a shorter path), the same wrap with its grant beside it, a plain
 * object that is not the wrap, numbers that are not safe integers, bare values and EDN.
 */
import { describe, expect, it } from "vitest";
import { ednValue } from "../../checkers/import/edn-values.js";
import { casRegisterModel } from "../../checkers/linearizability/models/register.js";
import type { HistoryEvent, Operation } from "../../sim/history.js";

const VALUES: unknown[] = [
  { value: 5 },
  { value: 0 },
  { value: -0 },
  { value: -7 },
  { value: 1.5 },
  { value: 2 ** 60 },
  { value: "5" },
  { value: null },
  { value: { value: 5 } },
  { value: 5, grantId: "c1#1" },
  { value: 5, token: 3 },
  { value: 5, colour: "red" },
  { counter: 5 },
  { grantId: "c1#1" },
  5,
  "5",
  null,
  [5],
  ednValue("{:value 5}"),
  ednValue(":value"),
  ednValue("9007199254740993"),
];

function op(i: number, f: "read" | "write", v: unknown): Operation {
  const invoke: HistoryEvent = { index: 2 * i, timeUs: 2 * i, process: `c${i}`, type: "invoke", f, lock: "x", value: f === "write" ? v : null };
  const complete: HistoryEvent = { index: 2 * i + 1, timeUs: 2 * i + 1, process: `c${i}`, type: "ok", f, lock: "x", value: f === "read" ? v : null };
  return { process: `c${i}`, f, lock: "x", invoke, complete, outcome: "ok", startUs: invoke.timeUs, endUs: complete.timeUs };
}

describe("register model: bound rules = step", () => {
  it("reads and writes of every value shape step alike, bound or not, from every state the writes leave", () => {
    const model = casRegisterModel;
    const ops = VALUES.flatMap((v, i) => [op(2 * i, "write", v), op(2 * i + 1, "read", v)]);
    const bound = model.bind!(ops);
    const states = [model.init(), ...ops.filter((o) => o.f === "write").map((o) => model.step(model.init(), o)!)];
    let legalReads = 0;
    for (const state of states)
      for (let i = 0; i < ops.length; i++) {
        const stepped = model.step(state, ops[i]!);
        expect(bound.step(state, i)).toBe(stepped);
        if (ops[i]!.f === "read" && stepped !== undefined) legalReads++;
      }
    // Each read is legal after its own write, and {value: 5}, 5 and {value: 5, grantId} read alike.
    expect(legalReads).toBeGreaterThan(VALUES.length);
    expect(model.step(model.step(model.init(), ops[0]!)!, op(99, "read", 5))).toBeDefined();
  });
});
