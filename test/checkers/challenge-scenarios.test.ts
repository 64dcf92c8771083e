import { describe, expect, it } from "vitest";
import { loadScenario, scenarioFiles } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import { judgeChallenge } from "../../checkers/challenge.js";
import { GOLDEN_SEEDS, seedsFor } from "../helpers/history-digests.js";

/**
 * Every shipped scenario over the golden seeds: an unsafe run is challenged by the
 * default rule itself (a violation is two claims meeting, so the rule must see the
 * overlap, not only the fallback in runCheckers); a scenario expected safe is challenged
 * by its own rule on every seed, so `lockstep run` of it never reports a vacuous pass.
 */
describe("challenge on the shipped scenarios, seeds 1-5", () => {
  for (const name of [...scenarioFiles().keys()].sort()) {
    it(name, () => {
      const s = loadScenario(name);
      for (const seed of seedsFor(name, GOLDEN_SEEDS)) {
        const run = runScenario(s, seed);
        const v = runCheckers(run.history, checkContextFor(s));
        if (v.safety === false) expect(judgeChallenge(run.history).challenged, `${name} seed ${seed}: unsafe but no overlap of beliefs`).toBe(true);
        if (s.expect === "safe") expect(v.outcome, `${name} seed ${seed}: ${v.challenge.why}`).toBe("safe");
        if (v.outcome === "not-challenged") expect(v.challenge.why.length).toBeGreaterThan(20);
      }
    });
  }
});
