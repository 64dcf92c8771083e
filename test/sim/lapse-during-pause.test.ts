import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import { computeHolds } from "../../checkers/holds.js";
import type { HistoryEvent } from "../../sim/history.js";

function run(name: string, seed?: number) {
  const s = loadScenario(name);
  const { history } = runScenario(s, seed ?? s.seed);
  return { s, history, v: runCheckers(history, checkContextFor(s)) };
}

const pauseOf = (h: readonly HistoryEvent[], target: string) => {
  const isPause = (phase: string) => (e: HistoryEvent) =>
    e.process === "nemesis" &&
    e.f === "pause" &&
    (e.value as { phase: string; targets?: string[] }).phase === phase &&
    (e.value as { targets?: string[] }).targets?.includes(target);
  return { startUs: h.find(isPause("start"))!.timeUs, endUs: h.find(isPause("end"))!.timeUs };
};

describe("a lease that lapses while its client is paused", () => {
  it("is noted when the client's clock passes the lease end, not when the client wakes", () => {
    const { history } = run("naive-gc-pause");
    const pause = pauseOf(history, "c1");
    const lapse = history.find((e) => e.process === "c1" && e.f === "lapse")!;
    // redis-setnx: the lease runs 10 s from the SET's send at t = 0, on a drift-free clock.
    expect(lapse.timeUs).toBe(10_000_000);
    expect(lapse.timeUs).toBeGreaterThan(pause.startUs);
    expect(lapse.timeUs).toBeLessThan(pause.endUs);
    const times = history.map((e) => e.timeUs);
    expect(times).toEqual([...times].sort((a, b) => a - b)); // the history stays in true-time order
  });

  it("naive-gc-pause stays unsafe: c1 writes after waking, which stretches its hold over c2's", () => {
    const { history, v } = run("naive-gc-pause");
    expect(v.outcome).toBe("unsafe");
    const c1 = computeHolds(history).find((h) => h.process === "c1")!;
    expect(c1).toMatchObject({ endedBy: "lapse", stretched: true });
    const write = history.find((e) => e.process === "c1" && e.f === "write" && e.type !== "invoke")!;
    expect(c1.endUs).toBe(write.timeUs);
  });

  it("naive-gc-pause-lapsed-idle is safe: c1 wakes, its extend is refused, it skips the write", () => {
    const { history, v } = run("naive-gc-pause-lapsed-idle");
    expect(v.outcome).toBe("safe");
    expect(history.some((e) => e.process === "c1" && e.f === "write")).toBe(false);
    expect(history.find((e) => e.process === "c1" && e.f === "extend" && e.type !== "invoke")!.type).toBe("fail");
    const pause = pauseOf(history, "c1");
    const [c1, c2] = [computeHolds(history).find((h) => h.process === "c1")!, computeHolds(history).find((h) => h.process === "c2")!];
    expect(c1).toMatchObject({ endedBy: "lapse", stretched: false });
    expect(c1.endUs).toBeLessThan(pause.endUs);
    expect(c1.endUs).toBeLessThanOrEqual(c2.startUs);
  });

  it("naive-gc-pause-lapsed-idle is safe on 20 seeds", () => {
    for (let seed = 1; seed <= 20; seed++) expect(run("naive-gc-pause-lapsed-idle", seed).v.outcome, `seed ${seed}`).toBe("safe");
  });
});
