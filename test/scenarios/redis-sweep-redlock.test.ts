import { describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { scenarioDir } from "../../scenarios/index.js";
import { itSweepsToItsVerdict } from "../helpers/scenario-sweep.js";

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
    expect(names.length).toBe(16);
  });
  for (const name of names) itSweepsToItsVerdict(name, SEEDS);
});
