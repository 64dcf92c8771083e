import { describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { loadScenario, scenarioDir } from "../../scenarios/index.js";
import { runScenario } from "../../sim/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../cli/check-context.js";

/**
 * Redlock scenarios over 200 seeds each: every seed gives the scenario's expected verdict.
 * The unsafe ones find the double holder every time (mutual exclusion fails); the
 * safe ones never do. Seeds change network jitter, retry jitter and tokens.
 */
const SEEDS = 200;
const names = readdirSync(join(scenarioDir(), "redis"))
  .map((f) => f.replace(/\.json$/, ""))
  .filter((n) => n.startsWith("redlock-"));

describe("Redlock scenarios, 200-seed sweeps", () => {
  it("covers the scenarios it should", () => {
    expect(names.length).toBe(15);
  });
  for (const name of names) {
    it(`${name}: its expected verdict on ${SEEDS}/${SEEDS} seeds`, () => {
      const s = loadScenario(name);
      const outcomes: Record<string, number> = {};
      let exclusionViolated = 0;
      for (let seed = 1; seed <= SEEDS; seed++) {
        const r = runScenario(s, seed);
        const v = runCheckers(r.history, checkContextFor(s));
        outcomes[v.outcome] = (outcomes[v.outcome] ?? 0) + 1;
        if (v.results.find((x) => x.checker === "mutual-exclusion")!.valid === false) exclusionViolated++;
      }
      expect(outcomes).toEqual({ [s.expect]: SEEDS });
      expect(exclusionViolated).toBe(s.expect === "safe" ? 0 : SEEDS);
    });
  }
});
