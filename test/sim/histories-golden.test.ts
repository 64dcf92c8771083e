import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { GOLDEN_SEEDS, fixturePath, historyDigest, seedsFor, shippedScenarioNames, type DigestFixture } from "../helpers/history-digests.js";

/**
 * Byte-identical histories: every shipped scenario, seeds 1–5, against the digests
 * recorded from the code before any speed work (issue 17). A speed change must leave
 * every one of them unchanged; a deliberate change of behaviour regenerates the fixture
 * with `npm run golden:update` in its own, named commit.
 */
const fixture = JSON.parse(readFileSync(fixturePath(), "utf8")) as DigestFixture;
const shipped = shippedScenarioNames();

describe("golden history digests (test/fixtures/history-digests.json)", () => {
  it("records every shipped scenario, and nothing else", () => {
    const missing = shipped.filter((n) => !(n in fixture));
    const stale = Object.keys(fixture).filter((n) => !shipped.includes(n));
    expect(missing, `shipped scenarios missing from the fixture (record them: npm run golden:update): ${missing.join(", ")}`).toEqual([]);
    expect(stale, `fixture entries with no shipped scenario (npm run golden:update): ${stale.join(", ")}`).toEqual([]);
  });

  for (const name of shipped) {
    const seeds = seedsFor(name, GOLDEN_SEEDS);
    it(`${name}: seeds ${seeds.join(", ")} give the recorded bytes`, () => {
      const recorded = fixture[name];
      expect(recorded, `${name} is not in the fixture (npm run golden:update)`).toBeDefined();
      for (const seed of seeds) {
        expect(historyDigest(name, seed), `${name} seed ${seed}: history bytes changed (replay: npx lockstep run ${name} --seed ${seed})`).toBe(
          recorded![String(seed)],
        );
      }
    });
  }
});
