import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { keptForCheckers } from "../../checkers/needed-events.js";
import { checkContextFor } from "../../harness/check-context.js";
import { seedsFor, shippedScenarioNames } from "../helpers/history-digests.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

/**
 * A streamed run that keeps only what the checkers read (checkers/needed-events.ts)
 * must give the verdicts of the whole history: results, stats and witnesses alike.
 */
describe("keptForCheckers: the events a streamed run keeps for checking", () => {
  it("every shipped scenario, seeds 1 and 2 (a scale run, seed 1): the same verdicts as the whole history", { timeout: hangBoundMs(240_000) }, () => {
    let dropped = 0;
    for (const name of shippedScenarioNames()) {
      const s = loadScenario(name);
      const keep = keptForCheckers(s.clients.map((c) => c.id));
      for (const seed of seedsFor(name, [1, 2])) {
        const full = runScenario(s, seed).history;
        const kept = full.filter(keep);
        dropped += full.length - kept.length;
        expect(runCheckers(kept, checkContextFor(s)), `${name} seed ${seed}`).toEqual(runCheckers(full, checkContextFor(s)));
      }
    }
    expect(dropped).toBeGreaterThan(0);
  });

  it("a run told to retain by it holds exactly those events, indexes as in the whole history", () => {
    const s = loadScenario("redis-failover-clean");
    const keep = keptForCheckers(s.clients.map((c) => c.id));
    const full = runScenario(s, 1).history;
    const kept = runScenario(s, 1, {}, { retainHistory: keep }).history;
    expect(kept).toEqual(full.filter(keep));
    expect(kept.length).toBeLessThan(full.length);
    expect(kept.map((e) => e.f)).not.toContain("repl-sent");
  });
});
