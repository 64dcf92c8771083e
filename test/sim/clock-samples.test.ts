import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";

/**
 * The run's clock samples (meta.clockSamples), kept in flat arrays during the run and made
 * records at the end (issue 17): only the clocks that ever left true time, in process
 * order, at every sample; none at all when no clock did.
 */
describe("clock samples", () => {
  it("are empty when every clock keeps true time", () => {
    expect(runScenario(loadScenario("naive-baseline"), 1).meta.clockSamples).toEqual([]);
  });

  it("hold the jumped clock only, at every sample, from true time 0 on the sampling period", () => {
    const { meta } = runScenario(loadScenario("redlock-clock-jump"), 1);
    const samples = meta.clockSamples;
    // 1.5 s in 200 samples: every 7.5 ms from 0 to the end, both included.
    expect(samples.length).toBe(Math.floor(1_500_000 / 7500) + 1);
    samples.forEach((smp, i) => {
      expect(smp.timeUs).toBe(i * 7500);
      expect(Object.keys(smp.offsetsUs)).toEqual(["redis-3"]);
    });
    // The 1.5 s step forward, as the samples see it: 0 before, 1.5 s after.
    expect(samples[0]!.offsetsUs["redis-3"]).toBe(0);
    expect(samples.at(-1)!.offsetsUs["redis-3"]).toBe(1_500_000);
  });
});
