import { describe, expect, it } from "vitest";
import { parseScenario } from "../../scenarios/schema.js";
import { expectScenarioError, MINIMAL_SCENARIO, scenarioErrorOf } from "../helpers/input-error.js";

/** workMs as a distribution, on the workload and on a client: accepted forms and one-line errors. */
const good = MINIMAL_SCENARIO;
const withClientWork = (workMs: unknown) => ({ ...good, clients: [{ id: "c1" }, { id: "c2", workMs }] });
const withWork = (workMs: unknown) => ({ ...good, workload: { ttlMs: 1000, workMs } });

const errorOf = scenarioErrorOf;

describe("workMs distributions in scenario files", () => {
  it("accepts a number, each distribution, and a client's own workMs; a client without one has no workMs field", () => {
    expect(parseScenario(good, "g.json").workload.workMs).toBe(5);
    expect(parseScenario(withWork(20), "g.json").workload.workMs).toBe(20);
    expect(parseScenario(withWork({ dist: "fixed", ms: 20 }), "g.json").workload.workMs).toEqual({ dist: "fixed", ms: 20 });
    expect(parseScenario(withWork({ dist: "uniform", minMs: 10, maxMs: 200 }), "g.json").workload.workMs).toEqual({ dist: "uniform", minMs: 10, maxMs: 200 });
    const s = parseScenario(withClientWork({ dist: "exponential", meanMs: 50, maxMs: 2000 }), "g.json");
    expect(s.clients[1]!.workMs).toEqual({ dist: "exponential", meanMs: 50, maxMs: 2000 });
    expect("workMs" in s.clients[0]!).toBe(false);
    expect(parseScenario(withClientWork(0), "g.json").clients[1]!.workMs).toBe(0);
  });

  it.each([
    [withWork("ten"), "workload.workMs", /expected a number >= 0 or a distribution object, e\.g\. \{"dist": "uniform", "minMs": 10, "maxMs": 200\}, got "ten"/],
    [withWork(-1), "workload.workMs", /expected a number >= 0, got -1/],
    [withWork([10, 20]), "workload.workMs", /expected a number >= 0 or a distribution object/],
    [withWork({ minMs: 1, maxMs: 2 }), "workload.workMs.dist", /expected one of "fixed", "uniform", "exponential", got nothing/],
    [withWork({ dist: "normal", meanMs: 5 }), "workload.workMs.dist", /expected one of "fixed", "uniform", "exponential", got "normal"/],
    [withWork({ dist: "fixed" }), "workload.workMs.ms", /expected a number >= 0, got nothing/],
    [withWork({ dist: "fixed", ms: 5, maxMs: 9 }), "workload.workMs.maxMs", /unknown field; expected one of: dist, ms/],
    [withWork({ dist: "uniform", minMs: 50, maxMs: 10 }), "workload.workMs.maxMs", /expected a number >= minMs \(50\), got 10/],
    [withWork({ dist: "uniform", minMs: -1, maxMs: 10 }), "workload.workMs.minMs", /expected a number >= 0, got -1/],
    [withWork({ dist: "exponential", meanMs: 50 }), "workload.workMs.maxMs", /expected a number >= 50, got nothing/],
    [withWork({ dist: "exponential", meanMs: 50, maxMs: 20 }), "workload.workMs.maxMs", /expected a number >= meanMs \(50\), got 20/],
    [withWork({ dist: "exponential", meanMs: 0, maxMs: 10 }), "workload.workMs.meanMs", /expected a number >= 0.001, got 0/],
    [withWork({ dist: "exponential", meanMs: 50, maxMs: 1e13 }), "workload.workMs.maxMs", /at most 1000000000000 in size/],
    [withClientWork({ dist: "uniform", minMs: 10 }), "clients[1].workMs.maxMs", /expected a number >= 10, got nothing/],
    [withClientWork("fast"), "clients[1].workMs", /expected a number >= 0 or a distribution object/],
    [
      withClientWork({ dist: "exponential", meanMs: 50, maxMs: 100, minMs: 1 }),
      "clients[1].workMs.minMs",
      /unknown field; expected one of: dist, meanMs, maxMs/,
    ],
  ])("rejects a bad workMs with its path (%#)", (raw, field, message) => {
    expectScenarioError(errorOf(raw), field, message);
  });
});
