import { describe, expect, it } from "vitest";
import { runSoak } from "../harness/soak.js";
import { loadScenario } from "../scenarios/index.js";

describe("run --duration's checker thread", () => {
  it.each([
    ["naive-gc-pause", 2, 90_000, "unsafe"],
    ["raft-zk-minority-partition", 1, 30_000, "safe"],
  ])("judges %s (seed %d, %d ms) exactly as the checkers in the run's own thread do", (name, seed, durationMs, outcome) => {
    const s = loadScenario(name);
    const threaded = runSoak(s, seed, { durationMs });
    const inThread = runSoak(s, seed, { durationMs, checkerThread: false });
    expect(threaded.verdicts.outcome).toBe(outcome);
    expect(threaded.verdicts).toEqual(inThread.verdicts);
    expect(threaded.tail).toEqual(inThread.tail);
    expect(threaded.run.meta).toEqual(inThread.run.meta);
  });
});
