import { describe, expect, it } from "vitest";
import { shrinkScenario } from "../../harness/explore/shrink.js";
import { loadScenario } from "../../scenarios/index.js";
import type { Scenario } from "../../scenarios/schema.js";

/**
 * A shrunk counterexample's fault note: the attack wrote "pauses for 1.5x its lease", the
 * shrink made the pause shorter, and the note went on saying 1.5x (an audit counterexample
 * said "1.5x lease" for a 1.024 s pause). The note now says the numbers the step has, as
 * multiples of the lease the run uses.
 */
describe("shrinking a fault step's numbers", () => {
  const start = (): Scenario => {
    const s = loadScenario("naive-gc-pause");
    return { ...s, faults: s.faults.map((f) => ({ ...f, note: "c1 pauses for 1.5x its lease" })) };
  };
  // Stands in for "still unsafe": a pause of at least 1.024 leases (10 s TTL) is kept.
  const violates = (s: Scenario) => s.faults.length > 0 && (s.faults[0]!.durationMs ?? 0) >= 10_240;

  it("the note keeps what the attack said and adds the pause it now is, as a multiple of the run's lease", () => {
    const s = start();
    expect(s.workload.ttlMs).toBe(10_000);
    const { scenario, minimal } = shrinkScenario({ scenario: s, seed: 1, runsMax: 500, violates });
    expect(minimal).toBe(true);
    // fast-check's first shrinks of 15000 stop a little above the bound: 10.2–10.6 s.
    const ms = scenario.faults[0]!.durationMs!;
    expect(ms).toBeGreaterThanOrEqual(10_240);
    expect(ms).toBeLessThan(11_000);
    expect(scenario.faults[0]!.note).toBe(`c1 pauses for 1.5x its lease (shrunk: durationMs ${ms} ms = ${(ms / 10_000).toFixed(2)}x the 10000 ms lease)`);
    expect(scenario.faults[0]!.note).toMatch(/= 1\.0\dx the 10000 ms lease\)$/);
  });

  it("a step whose numbers did not change keeps its note as written", () => {
    const s = start();
    const { scenario } = shrinkScenario({ scenario: s, seed: 1, runsMax: 500, violates: (c) => c.faults[0]?.durationMs === 15_000 });
    expect(scenario.faults[0]!.note).toBe("c1 pauses for 1.5x its lease");
  });
});
