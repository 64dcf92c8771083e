import { describe, expect, it } from "vitest";
import { check, soak } from "../api/index.js";
import { loadScenario } from "../scenarios/index.js";

describe("api: soak", () => {
  it("judges a long run online as check() judges the same scenario of that duration in batch", () => {
    const s = { ...loadScenario("naive-gc-pause"), durationMs: 90_000 };
    const long = soak("naive-gc-pause", 2, { durationMs: 90_000 });
    const whole = check(s, 2);
    expect(long.outcome).toBe("unsafe");
    expect(long.verdicts.results.map((r) => [r.checker, r.valid])).toEqual(whole.verdicts.results.map((r) => [r.checker, r.valid]));
    expect(long.replay).toBe("npx lockstep run naive-gc-pause --seed 2 --duration 90000ms");
    expect(long.tail.length).toBeGreaterThan(0);
    expect(long.tail.length).toBeLessThan(whole.history.length);
  });
});
