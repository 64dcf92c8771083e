import { describe, expect, it } from "vitest";
import { allScenarios } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { checkContextFor } from "../../harness/check-context.js";
import { mutualExclusion } from "../../checkers/mutual-exclusion.js";
import { checkerByName } from "../../checkers/index.js";
import { pairOperations, type HistoryEvent } from "../../sim/history.js";

/**
 * The linearizability checker must find, from what clients observed alone, the double
 * holders the mutual-exclusion check finds with the simulator's true-time view. So it is
 * given only client operations: no storage notes, no nemesis events, no `lapse` notes,
 * no final read — what a Jepsen client log would hold.
 */
function clientObserved(history: readonly HistoryEvent[]): HistoryEvent[] {
  const ops = pairOperations(history).ops.filter((op) => op.process !== "storage" && op.process !== "nemesis");
  const keep = new Set<number>();
  for (const op of ops) {
    keep.add(op.invoke.index);
    if (op.complete) keep.add(op.complete.index);
  }
  return history.filter((e) => keep.has(e.index)).map((e, index) => ({ ...e, index }));
}

const linearizability = checkerByName("linearizability")!.check;
const scenarios = allScenarios();

describe("linearizability from the client-observed history alone", () => {
  it("has unsafe and safe scenarios to judge", () => {
    expect(scenarios.filter((s) => s.expect === "unsafe").length).toBeGreaterThanOrEqual(10);
    expect(scenarios.filter((s) => s.expect === "safe").length).toBeGreaterThanOrEqual(10);
  });

  for (const s of scenarios.filter((x) => x.expect === "unsafe")) {
    it(`${s.name}: the double holder is found (seed ${s.seed})`, () => {
      const run = runScenario(s, s.seed);
      expect(mutualExclusion(run.history, {}).valid, `mutual exclusion on ${s.name}`).toBe(false);
      const observed = clientObserved(run.history);
      expect(observed.some((e) => e.process === "storage" || e.process === "nemesis" || e.f === "lapse")).toBe(false);
      const r = linearizability(observed, checkContextFor(s));
      expect(r.valid, `${r.summary} — replay: npx lockstep run ${s.name} --seed ${s.seed}`).toBe(false);
    });
  }

  for (const s of scenarios.filter((x) => x.expect === "safe")) {
    it(`${s.name}: no false alarm (seed ${s.seed})`, () => {
      const run = runScenario(s, s.seed);
      const r = linearizability(clientObserved(run.history), checkContextFor(s));
      expect(r.valid, `${r.summary} — replay: npx lockstep run ${s.name} --seed ${s.seed}`).toBe(true);
    });
  }
});
