/**
 * The WGL search against a brute-force oracle (every order of every op, info ops placed
 * or left out) on small random histories. fast-check prints the seed and path of any
 * failure, which replay it: fc.assert(..., { seed, path }).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bruteForceLinearizable } from "../../checkers/linearizability/brute-force.js";
import type { AnyModel } from "../../checkers/linearizability/model.js";
import { leaseLockModel } from "../../checkers/linearizability/models/lease-lock.js";
import { mutexModel } from "../../checkers/linearizability/models/mutex.js";
import { casRegisterModel, registerModel } from "../../checkers/linearizability/models/register.js";
import { searchLinearization } from "../../checkers/linearizability/search.js";
import type { Operation } from "../../sim/history.js";

const BUDGET = { statesMax: 1_000_000, memoryMbMax: 512 };

interface RawOp {
  client: number;
  f: string;
  grant: number;
  value: number;
  value2: number;
  startUs: number;
  durUs: number;
  outcome: "ok" | "info";
  released: boolean;
}

function toOperations(raw: RawOp[]): Operation[] {
  return raw.map((r, i) => {
    const process = `c${r.client}`;
    const grantId = `c${r.grant}#1`;
    let input: unknown;
    let output: unknown;
    switch (r.f) {
      case "acquire":
        input = { ttlMs: 0.01 }; // 10 µs, so leases lapse within these short histories
        output = { grantId: `${process}#1` };
        break;
      case "release":
        input = { grantId };
        output = { released: r.released };
        break;
      case "write":
        input = { grantId, value: r.value };
        output = {};
        break;
      case "read":
        input = { grantId };
        output = { value: r.value };
        break;
      case "cas":
        input = [r.value, r.value2];
        output = undefined;
        break;
    }
    const endUs = r.outcome === "info" ? Infinity : r.startUs + r.durUs;
    const invoke = { index: 2 * i, timeUs: r.startUs, process, type: "invoke" as const, f: r.f, lock: "L", value: input };
    const complete = r.outcome === "info" ? undefined : { index: 2 * i + 1, timeUs: endUs, process, type: r.outcome, f: r.f, lock: "L", value: output };
    return { process, f: r.f, lock: "L", invoke, complete, outcome: r.outcome, startUs: r.startUs, endUs };
  });
}

const rawOp = (fs: string[]): fc.Arbitrary<RawOp> =>
  fc.record({
    client: fc.integer({ min: 1, max: 3 }),
    f: fc.constantFrom(...fs),
    grant: fc.integer({ min: 1, max: 3 }),
    value: fc.integer({ min: 0, max: 2 }),
    value2: fc.integer({ min: 0, max: 2 }),
    startUs: fc.integer({ min: 0, max: 30 }),
    durUs: fc.integer({ min: 0, max: 12 }),
    outcome: fc.constantFrom<"ok" | "info">("ok", "ok", "ok", "info"),
    released: fc.boolean(),
  });

function compare(name: string, model: AnyModel, fs: string[], numRuns: number): void {
  it(`${name}: WGL agrees with brute force on ≤ 7-op histories`, () => {
    const seen = { true: 0, false: 0 };
    fc.assert(
      fc.property(fc.array(rawOp(fs), { minLength: 1, maxLength: 7 }), (raw) => {
        const ops = toOperations(raw).filter((op) => (model.admits ? model.admits(op) : true));
        const expected = bruteForceLinearizable(model, ops);
        const got = searchLinearization(model, ops, BUDGET).valid;
        seen[expected ? "true" : "false"]++;
        return got === expected;
      }),
      { numRuns },
    );
    // Both verdicts must occur, or the comparison proves nothing.
    expect(seen.true).toBeGreaterThan(numRuns / 20);
    expect(seen.false).toBeGreaterThan(numRuns / 20);
  });
}

describe("linearizability property: WGL = brute force", () => {
  compare("mutex", mutexModel, ["acquire", "release", "write"], 1500);
  compare("register", registerModel, ["write", "read"], 1500);
  compare("cas-register", casRegisterModel, ["write", "read", "cas"], 800);
  compare("lease-lock", leaseLockModel(), ["acquire", "release", "write"], 1500);
});
