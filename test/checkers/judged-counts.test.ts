/**
 * Every checker says what it judged (counts in its stats, which results.json carries),
 * and one with nothing to judge says n/a (skipped) or unknown, never a plain ok.
 */
import { describe, expect, it } from "vitest";
import { CHECKERS } from "../../checkers/index.js";
import { runCheckers } from "../../checkers/run-all.js";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { checkContextFor } from "../../harness/check-context.js";

describe("what each checker judged", () => {
  it("a run's results carry each checker's counts", () => {
    const s = loadScenario("naive-baseline");
    const v = runCheckers(runScenario(s, 1).history, checkContextFor(s));
    for (const r of v.results) {
      const counts = Object.values(r.stats ?? {}).filter((x) => typeof x === "number");
      expect(counts.length, r.checker).toBeGreaterThan(0);
    }
    const by = Object.fromEntries(v.results.map((r) => [r.checker, r.stats]));
    expect(by["mutual-exclusion"]!.holds).toBeGreaterThan(0);
    expect(by["lost-updates"]!.acknowledgedWrites).toBeGreaterThan(0);
    expect(by.liveness!.waitsJudged).toBeGreaterThan(0);
  });

  it("an empty history: every checker says n/a or unknown, none says ok", () => {
    const v = runCheckers([], { ttlMs: 1000 });
    expect(v.results).toHaveLength(CHECKERS.length);
    for (const r of v.results) expect(r.skipped !== undefined || r.valid === "unknown", `${r.checker}: ${r.summary}`).toBe(true);
  });

  it("fencing with writes that carry neither token nor grant id judges nothing", () => {
    const write = { index: 0, timeUs: 1, process: "storage", type: "ok" as const, f: "storage-write", lock: "L", value: { client: "c1", counter: 1 } };
    const r = CHECKERS.find((c) => c.name === "fencing")!.check([write], {});
    expect(r.skipped).toBeDefined();
    expect(r.summary).toMatch(/nothing to judge/);
  });
});
