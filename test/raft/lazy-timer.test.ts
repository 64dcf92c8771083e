import { describe, expect, it } from "vitest";
import { Simulation, type ProcessContext } from "../../sim/simulation.js";
import { LazyTimer } from "../../services/raft/lazy-timer.js";

/**
 * The election timer's deadline moves without a kernel timer per reset
 * (services/raft/lazy-timer.ts): it fires once, at the last deadline set, and a follower
 * reset every few ms keeps one event in the queue, not one per reset.
 */
function setup() {
  const sim = new Simulation({ seed: "lazy" });
  let ctx!: ProcessContext;
  sim.addProcess("p", "server", {}, (c) => {
    ctx = c;
    return {};
  });
  const firedAtUs: number[] = [];
  const timer = new LazyTimer(ctx, () => firedAtUs.push(sim.nowUs));
  /** Run to `ms` and call `f` there. */
  const at = (ms: number, f: () => void) => sim.schedule(ms * 1000, f);
  return { sim, timer, firedAtUs, at };
}

describe("LazyTimer", () => {
  it("fires once, at the last deadline set, after resets every 10 ms", () => {
    const { sim, timer, firedAtUs, at } = setup();
    at(0, () => timer.set(100));
    for (let ms = 10; ms <= 200; ms += 10) at(ms, () => timer.set(100));
    sim.run(1_000_000);
    expect(firedAtUs).toEqual([300_000]);
  });

  it("keeps one kernel timer queued however often it is reset", () => {
    const { sim, timer, at } = setup();
    let queuedMax = 0;
    // Each reset schedules the next, so the queue holds one reset and the timer's events.
    const reset = (ms: number): void => {
      timer.set(100);
      queuedMax = Math.max(queuedMax, sim.queueLength);
      if (ms < 50) at(ms + 1, () => reset(ms + 1));
    };
    at(0, () => reset(0));
    sim.run(60_000);
    // A kernel timer per reset would leave 51 queued (cancelled ones still wait for their time).
    expect(queuedMax).toBe(1);
    expect(sim.queueLength).toBe(1);
  });

  it("fires early when the deadline moves earlier than the armed timer", () => {
    const { sim, timer, firedAtUs, at } = setup();
    at(0, () => timer.set(300));
    at(10, () => timer.set(50));
    sim.run(1_000_000);
    expect(firedAtUs).toEqual([60_000]);
  });

  it("does not fire once cancelled, and fires again after a new set", () => {
    const { sim, timer, firedAtUs, at } = setup();
    at(0, () => timer.set(100));
    at(50, () => timer.cancel());
    at(400, () => timer.set(20));
    sim.run(1_000_000);
    expect(firedAtUs).toEqual([420_000]);
  });
});
