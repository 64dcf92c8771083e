import { describe, expect, it } from "vitest";
import { Rng } from "../../sim/rng.js";
import { drawWorkMs, scaleWorkTime, workTimeMeanMs, type WorkTime } from "../../sim/work-time.js";
import { parseScenario } from "../../scenarios/schema.js";
import { runScenario } from "../../harness/runner.js";
import { historyToJsonl, type HistoryEvent } from "../../sim/history.js";
import { scaleScenario } from "../../real/time-scale.js";

/** n draws of `w` from one seeded stream. */
function draws(w: WorkTime, n: number, seed = "work-time-test"): number[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => drawWorkMs(w, () => rng.float()));
}
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("work-time draws follow their distribution", () => {
  it("a number and a fixed distribution are exact and draw no randomness", () => {
    const never = (): number => {
      throw new Error("drew randomness");
    };
    expect(drawWorkMs(20, never)).toBe(20);
    expect(drawWorkMs({ dist: "fixed", ms: 37.5 }, never)).toBe(37.5);
    expect(drawWorkMs(0, never)).toBe(0);
  });

  it("uniform: every draw within [minMs, maxMs], both ends reached, the mean the midpoint within 2 %, kept to whole µs", () => {
    const w: WorkTime = { dist: "uniform", minMs: 10, maxMs: 200 };
    const xs = draws(w, 20_000);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...xs)).toBeLessThanOrEqual(200);
    // 20 000 draws: the extremes come within 0.1 % of the range of each end.
    expect(Math.min(...xs)).toBeLessThan(10 + 0.19);
    expect(Math.max(...xs)).toBeGreaterThan(200 - 0.19);
    expect(Math.abs(mean(xs) - 105) / 105).toBeLessThan(0.02);
    // Each tenth of the range holds about a tenth of the draws (±15 % of that).
    const bins = new Array<number>(10).fill(0);
    for (const x of xs) bins[Math.min(9, Math.floor((x - 10) / 19))]!++;
    for (const b of bins) expect(Math.abs(b - 2000)).toBeLessThan(300);
    for (const x of xs) expect(Math.round(x * 1000)).toBeCloseTo(x * 1000, 6);
  });

  it("exponential: the mean within 3 % of meanMs (maxMs far out), the median meanMs·ln 2 within 5 %, nothing above maxMs", () => {
    const w: WorkTime = { dist: "exponential", meanMs: 50, maxMs: 2000 };
    const xs = draws(w, 20_000);
    // Standard error of the mean: 50 / sqrt(20000) = 0.35 ms, so 3 % (1.5 ms) is over 4 of them.
    expect(Math.abs(mean(xs) - 50) / 50).toBeLessThan(0.03);
    const sorted = [...xs].sort((a, b) => a - b);
    const median = sorted[xs.length / 2]!;
    expect(Math.abs(median - 50 * Math.LN2) / (50 * Math.LN2)).toBeLessThan(0.05);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThanOrEqual(2000);
  });

  it("bounded exponential: draws past maxMs are held at maxMs, about e^(-max/mean) of them, and the mean follows mean·(1 − e^(−max/mean))", () => {
    const w: WorkTime = { dist: "exponential", meanMs: 50, maxMs: 60 };
    const xs = draws(w, 20_000);
    expect(Math.max(...xs)).toBe(60);
    const atMax = xs.filter((x) => x === 60).length / xs.length;
    expect(Math.abs(atMax - Math.exp(-60 / 50))).toBeLessThan(0.02);
    expect(workTimeMeanMs(w)).toBeCloseTo(50 * (1 - Math.exp(-1.2)), 9);
    expect(Math.abs(mean(xs) - workTimeMeanMs(w)) / workTimeMeanMs(w)).toBeLessThan(0.03);
  });

  it("one seed repeats its draws exactly; two seeds differ", () => {
    const w: WorkTime = { dist: "exponential", meanMs: 50, maxMs: 2000 };
    expect(draws(w, 100, "s1")).toEqual(draws(w, 100, "s1"));
    expect(draws(w, 100, "s1")).not.toEqual(draws(w, 100, "s2"));
  });

  it("real mode's --time-scale scales every time of a distribution", () => {
    const half = (ms: number): number => ms / 2;
    expect(scaleWorkTime(40, half)).toBe(20);
    expect(scaleWorkTime({ dist: "uniform", minMs: 10, maxMs: 200 }, half)).toEqual({ dist: "uniform", minMs: 5, maxMs: 100 });
    expect(scaleWorkTime({ dist: "exponential", meanMs: 50, maxMs: 2000 }, half)).toEqual({ dist: "exponential", meanMs: 25, maxMs: 1000 });
    expect(scaleWorkTime({ dist: "fixed", ms: 8 }, half)).toEqual({ dist: "fixed", ms: 4 });
    const s = parseScenario(
      {
        ...scenarioRaw(),
        clients: [{ id: "c1", workMs: { dist: "uniform", minMs: 10, maxMs: 200 } }, { id: "c2" }],
        workload: { ttlMs: 1000, workMs: { dist: "exponential", meanMs: 50, maxMs: 2000 } },
      },
      "s.json",
    );
    const t = scaleScenario(s, 0.5);
    expect(t.clients[0]!.workMs).toEqual({ dist: "uniform", minMs: 5, maxMs: 100 });
    expect("workMs" in t.clients[1]!).toBe(false);
    expect(t.workload.workMs).toEqual({ dist: "exponential", meanMs: 25, maxMs: 1000 });
  });
});

/**
 * In the simulator: each hold's work time is the gap between the client's `ok read` and
 * its `invoke write` (nothing else happens between them; clocks run true by default).
 */
describe("per-client work times in a run", () => {
  const scenario = parseScenario(
    {
      name: "work-time-mix",
      story: "three clients with three work-time forms",
      design: "redis-setnx",
      expect: "safe",
      durationMs: 20_000,
      clients: [
        { id: "c1", workMs: { dist: "uniform", minMs: 10, maxMs: 200 } },
        { id: "c2", workMs: { dist: "exponential", meanMs: 30, maxMs: 90 } },
        { id: "c3" },
      ],
      workload: { ttlMs: 5000, waitMs: 5000, workMs: { dist: "fixed", ms: 20 }, thinkMs: 5, thinkJitterMs: 5 },
    },
    "work-time-mix.json",
  );

  function workTimes(h: readonly HistoryEvent[], process: string): number[] {
    const out: number[] = [];
    let readOkUs: number | undefined;
    for (const e of h) {
      if (e.process !== process) continue;
      if (e.f === "read" && e.type === "ok") readOkUs = e.timeUs;
      if (e.f === "write" && e.type === "invoke" && readOkUs !== undefined) {
        out.push((e.timeUs - readOkUs) / 1000);
        readOkUs = undefined;
      }
    }
    return out;
  }

  it("each client works for its own distribution's draws, the workload's fixed time for a client without one", () => {
    const h = runScenario(scenario, 1).history;
    const c1 = workTimes(h, "c1");
    const c2 = workTimes(h, "c2");
    const c3 = workTimes(h, "c3");
    for (const xs of [c1, c2, c3]) expect(xs.length).toBeGreaterThan(30);
    for (const x of c1) {
      expect(x).toBeGreaterThanOrEqual(10);
      expect(x).toBeLessThanOrEqual(200);
    }
    expect(new Set(c1).size).toBeGreaterThan(c1.length / 2);
    for (const x of c2) expect(x).toBeLessThanOrEqual(90);
    expect(new Set(c2).size).toBeGreaterThan(c2.length / 2);
    expect(c3.every((x) => x === 20)).toBe(true);
  });

  it("the same seed gives the same history byte for byte; another seed gives other work times", () => {
    const a = historyToJsonl(runScenario(scenario, 7).history);
    expect(historyToJsonl(runScenario(scenario, 7).history)).toBe(a);
    const b = runScenario(scenario, 8).history;
    expect(historyToJsonl(b)).not.toBe(a);
    expect(workTimes(b, "c1").slice(0, 10)).not.toEqual(workTimes(runScenario(scenario, 7).history, "c1").slice(0, 10));
  });

  it("a restarted client draws afresh rather than repeating its first life's work times", () => {
    const s = parseScenario(
      {
        ...scenarioRaw(),
        durationMs: 4000,
        clients: [{ id: "c1", workMs: { dist: "uniform", minMs: 10, maxMs: 200 } }],
        // A short TTL: the crashed client's lock expires soon after its restart.
        workload: { ttlMs: 300, thinkMs: 5, thinkJitterMs: 0 },
        faults: [{ kind: "crash", atMs: 2000, target: "c1", durationMs: 100 }],
      },
      "r.json",
    );
    const h = runScenario(s, 1).history;
    const restartUs = h.find((e) => e.process === "nemesis" && e.timeUs > 2000_000)!.timeUs;
    const first = workTimes(
      h.filter((e) => e.timeUs < restartUs),
      "c1",
    );
    const second = workTimes(
      h.filter((e) => e.timeUs > 2100_000),
      "c1",
    );
    expect(first.length).toBeGreaterThan(3);
    expect(second.length).toBeGreaterThan(3);
    expect(second.slice(0, 3)).not.toEqual(first.slice(0, 3));
  });

  it("drawing work times leaves the client's other dice alone: with fixed times everywhere, think jitter and lock picks fall as with plain numbers", () => {
    const plain = parseScenario({ ...scenarioRaw(), clients: 2, workload: { ttlMs: 5000, workMs: 20, locks: ["a", "b"] } }, "p.json");
    const asDist = parseScenario(
      {
        ...scenarioRaw(),
        clients: [{ id: "c1", workMs: { dist: "fixed", ms: 20 } }, { id: "c2" }],
        workload: { ttlMs: 5000, workMs: { dist: "fixed", ms: 20 }, locks: ["a", "b"] },
      },
      "d.json",
    );
    expect(historyToJsonl(runScenario(asDist, 3).history)).toBe(historyToJsonl(runScenario(plain, 3).history));
  });
});

function scenarioRaw() {
  return { name: "t", story: "s", design: "redis-setnx", expect: "safe", durationMs: 3000 };
}
