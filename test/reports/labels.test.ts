import { describe, expect, it } from "vitest";
import { spreadLabels } from "../../reports/browser/run/labels.js";

describe("spreadLabels: the latency chart's target, p99 and p50 labels never print over one another", () => {
  const apart = (y: number[], gap: number): boolean => {
    const s = y.slice().sort((a, b) => a - b);
    return s.every((v, i) => i === 0 || v - s[i - 1]! >= gap - 1e-9);
  };

  it("labels already apart stay where they want to be", () => {
    expect(spreadLabels([20, 60, 100], 13, 10, 166)).toEqual([20, 60, 100]);
  });

  it("a p99 just under the target and a p50 equal to it are spread, in the same order", () => {
    // target at 36, p99 at 39 (-4 above their lines), p50 at 55 (+12 below the same line as p99).
    const y = spreadLabels([36, 39, 55], 13, 20, 164);
    expect(apart(y, 13)).toBe(true);
    expect(y[0]).toBeLessThan(y[1]!);
    expect(y[1]).toBeLessThan(y[2]!);
    expect(y[0]).toBe(36);
  });

  it("labels crowded at the bottom are pushed back up inside the chart, and never above its top", () => {
    const y = spreadLabels([160, 162, 164], 13, 20, 164);
    expect(apart(y, 13)).toBe(true);
    expect(Math.max(...y)).toBeLessThanOrEqual(164);
    const tight = spreadLabels([15, 15, 15], 13, 20, 30);
    expect(Math.min(...tight)).toBeGreaterThanOrEqual(20);
  });
});
