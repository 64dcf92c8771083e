import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { loadScenario } from "../scenarios/index.js";
import type { Scenario } from "../scenarios/schema.js";
import { InputError } from "../sim/errors.js";
import { parseShard, shardOf, seedsOf } from "../harness/sweep/range.js";
import { wilson95 } from "../harness/sweep/wilson.js";
import { runSweep } from "../harness/sweep/sweep.js";
import { mergeSummaries } from "../harness/sweep/merge.js";
import { rateCi, resultFields, type SweepSummary } from "../harness/sweep/summary.js";
import { formatSweepSummary } from "../terminal/sweep.js";
import { Progress, StepProgress } from "../harness/sweep/progress.js";

/**
 * A short scenario whose outcome depends on the seed: c1 is paused for longer than
 * the TTL at 700 ms, which is unsafe only when c1 happens to hold the lock then
 * (about one seed in six).
 */
function mixed(): Scenario {
  const base = loadScenario("naive-baseline");
  return {
    ...base,
    name: "sweep-mixed",
    file: "/tmp/sweep-mixed.json",
    expect: "safe",
    durationMs: 2000,
    workload: { ...base.workload, ttlMs: 300 },
    faults: [{ kind: "pause", atMs: 700, delayMs: 0, target: "c1", durationMs: 400 }],
  };
}

describe("seed ranges and shards", () => {
  it("n shards cover the range exactly once, in order, with sizes differing by at most one", () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(300), fc.integer({ min: 1, max: 40 }), (from, len, n) => {
        const range = { from, to: from + len - 1 };
        const slices = Array.from({ length: n }, (_, i) => shardOf(range, i + 1, n));
        expect(slices.flatMap(seedsOf)).toEqual(seedsOf(range));
        const sizes = slices.map((s) => seedsOf(s).length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("rejects shards outside 1..n and malformed ones", () => {
    expect(parseShard("2/4", "--shard")).toEqual({ index: 2, count: 4 });
    for (const bad of ["5/4", "0/4", "1/0", "2", "a/b", "-1/4"]) expect(() => parseShard(bad, "--shard")).toThrow(InputError);
  });
});

describe("Wilson score interval", () => {
  it("matches published values and stays in [0, 1]", () => {
    const [lo1, hi1] = wilson95(0, 10);
    expect(lo1).toBe(0);
    expect(hi1).toBeCloseTo(0.2775, 3);
    const [lo2, hi2] = wilson95(5, 10);
    expect(lo2).toBeCloseTo(0.2366, 3);
    expect(hi2).toBeCloseTo(0.7634, 3);
    const [lo3, hi3] = wilson95(1000, 1000);
    expect(hi3).toBe(1);
    expect(lo3).toBeCloseTo(0.99617, 4);
    expect(wilson95(0, 0)).toEqual([0, 1]);
  });
});

describe("runSweep", () => {
  const range = { from: 1, to: 120 };

  it("gives the same per-seed results and summary with 1 and 2 workers", async () => {
    const s = mixed();
    const one = await runSweep(s, { range, workers: 1, limit: 5, progress: false });
    const two = await runSweep(s, { range, workers: 2, limit: 5, progress: false });
    expect(two.results).toEqual(one.results);
    expect(resultFields(two.summary)).toEqual(resultFields(one.summary));
    expect(JSON.stringify(resultFields(two.summary))).toBe(JSON.stringify(resultFields(one.summary)));
    // The scenario really is mixed, so the rates and seed lists are not trivially equal.
    const { violations } = one.summary.safety;
    expect(violations).toBeGreaterThan(5);
    expect(violations).toBeLessThan(115);
    expect(one.summary.failingSeeds.count).toBe(violations);
    expect(one.summary.failingSeeds.first).toEqual(
      one.results
        .filter((r) => r.valid === false)
        .slice(0, 5)
        .map((r) => r.seed),
    );
    expect(one.summary.expected.matched).toBe(one.results.filter((r) => r.outcome === "safe").length);
    expect(one.summary.replay).toBe(`npx lockstep run ${s.file} --seed ${one.summary.failingSeeds.first[0]}`);
    const [lo, hi] = one.summary.safety.ci95;
    expect(lo).toBeLessThan(one.summary.safety.rate);
    expect(hi).toBeGreaterThan(one.summary.safety.rate);
  });

  it("a checker with nothing to judge is n/a, not 0%: counted apart, its rate over the runs it judged", async () => {
    const r = await runSweep(mixed(), { range: { from: 1, to: 12 }, workers: 1, limit: 5, progress: false });
    // Redis: no replica states in any run.
    expect(r.summary.checkers["replica-agreement"]).toMatchObject({ violations: 0, notApplicable: 12 });
    const text = formatSweepSummary(r.summary);
    expect(text).toMatch(/\n {2}replica-agreement +n\/a +n\/a {2}nothing to judge in any run\n/);
    expect(text).not.toMatch(/replica-agreement +0\/12/);
    // Judged in some runs only: the rate and the interval are over those.
    const partly = rateCi(1, 0, 10, 4);
    expect(partly).toEqual({ violations: 1, unknown: 0, notApplicable: 4, rate: 1 / 6, ci95: wilson95(1, 6) });
    const summary = { ...r.summary, runs: 10, checkers: { fencing: partly } };
    expect(formatSweepSummary(summary)).toMatch(/\n {2}fencing +1\/6 +16\.7% {2}\[[\d.]+%, [\d.]+%\] {2}\(n\/a in 4 of 10 runs: nothing to judge\)\n/);
  });

  it("4 shards merged equal the unsharded sweep; merge refuses overlap and mismatches", async () => {
    const s = mixed();
    const whole = await runSweep(s, { range, workers: 1, limit: 5, progress: false });
    const parts: Array<{ file: string; summary: SweepSummary }> = [];
    for (const index of [3, 1, 4, 2]) {
      const r = await runSweep(s, { range, shard: { index, count: 4 }, workers: 1, limit: 5, progress: false });
      expect(r.summary.runs).toBe(30);
      parts.push({ file: `shard-${index}.json`, summary: r.summary });
    }
    const merged = mergeSummaries(parts);
    expect(JSON.stringify(resultFields(merged))).toBe(JSON.stringify(resultFields(whole.summary)));
    expect(merged.shards.map((x) => x.index)).toEqual([1, 2, 3, 4]);

    // Only three of four shards: merged but marked incomplete.
    const partial = mergeSummaries(parts.slice(0, 3));
    expect(partial.complete).toBe(false);
    expect(partial.runs).toBe(90);

    expect(() => mergeSummaries([parts[0]!, parts[0]!])).toThrow(/overlaps shard 3\/4/);
    const other = { ...parts[1]!, summary: { ...parts[1]!.summary, scenario: { ...parts[1]!.summary.scenario, digest: "0000" } } };
    expect(() => mergeSummaries([parts[0]!, other])).toThrow(/expected shards of one scenario/);
    const otherRange = { ...parts[1]!, summary: { ...parts[1]!.summary, seeds: { from: 1, to: 999 } } };
    expect(() => mergeSummaries([parts[0]!, otherRange])).toThrow(/expected shards of one seed range/);
  });

  it("reports an unknown design before starting any worker", async () => {
    const s = { ...mixed(), design: "no-such-design" };
    await expect(runSweep(s, { range, workers: 2, limit: 5, progress: false })).rejects.toThrow(/unknown design "no-such-design"/);
  });

  it("carries an InputError from a worker back as an InputError", async () => {
    const s: Scenario = { ...mixed(), faults: [{ kind: "pause", atMs: 10, delayMs: 0, target: "ghost", durationMs: 5 }] };
    await expect(runSweep(s, { range: { from: 1, to: 4 }, workers: 2, limit: 5, progress: false })).rejects.toBeInstanceOf(InputError);
  });
});

describe("progress bar", () => {
  const sink = () => {
    const s = { text: "", write: (t: string) => ((s.text += t), true) };
    return s;
  };

  it("redraws in place on a terminal and ends with one line", () => {
    const out = sink();
    const p = new Progress("sweep x", 10, out, true);
    p.add(10, 3);
    p.finish();
    expect(out.text).toMatch(/\rsweep x \[#{30}\] 10\/10 100% {2}3 failing/);
    // eslint-disable-next-line no-control-regex -- the terminal's erase-line escape is what is tested
    expect(out.text).toMatch(/sweep x: 10\/10 seeds in [\d.]+ s .*3 with a violation\x1b\[K\n$/);
  });

  it("prints only the final line when not a terminal", () => {
    const out = sink();
    // A fixed clock: no 5 s can pass between the two adds, however slow the machine.
    const p = new Progress("sweep x", 10, out, false, () => 0);
    p.add(4, 0);
    p.add(6, 1);
    p.finish();
    expect(out.text).not.toContain("\r");
    expect(out.text.trim().split("\n")).toHaveLength(1);
    expect(out.text).toMatch(/^sweep x: 10\/10 seeds in [\d.]+ s \(\d+ seeds\/s\), 1 with a violation\n$/);
  });

  it("when not a terminal, a plain line every 5 s of a long sweep, then the final line", () => {
    const out = sink();
    let now = 1000;
    const p = new Progress("sweep x", 100, out, false, () => now);
    p.add(10, 0);
    now += 4000;
    p.add(10, 1);
    now += 2000; // 6 s in
    p.add(10, 0);
    now += 6000;
    p.add(70, 0);
    p.finish();
    expect(out.text).not.toContain("\r");
    expect(out.text.trim().split("\n")).toEqual([
      "sweep x: 30/100 seeds, 1 with a violation, 6 s",
      expect.stringMatching(/^sweep x: 100\/100 seeds in 12\.0 s/),
    ]);
  });
});

describe("step progress (debate, real, explore)", () => {
  const sink = (isTTY: boolean) => {
    const s = { isTTY, text: "", write: (t: string) => ((s.text += t), true) };
    return s;
  };

  it("piped: a plain line at most every 5 s, none before", () => {
    const out = sink(false);
    let now = 0;
    const p = new StepProgress("debate", out, () => now);
    p.step("claim 1/9 (a)");
    now = 4999;
    p.step("claim 2/9 (b)");
    now = 5000;
    p.step("claim 3/9 (c)");
    now = 7000;
    p.step("claim 4/9 (d)");
    now = 10_500;
    p.step("claim 5/9 (e)");
    p.done();
    expect(out.text).toBe("debate: claim 3/9 (c), 5 s\ndebate: claim 5/9 (e), 11 s\n");
  });

  it("on a terminal: redrawn in place at most 5 times a second, the line cleared at the end", () => {
    const out = sink(true);
    let now = 0;
    const p = new StepProgress("lockstep real", out, () => now);
    now = 100;
    p.step("run 1/1: 0.1/30.0 s of the scenario, 4 events");
    now = 250;
    p.step("run 1/1: 0.2/30.0 s of the scenario, 9 events");
    p.done();
    expect(out.text).toBe("\rlockstep real: run 1/1: 0.2/30.0 s of the scenario, 9 events, 0 s\x1b[K\r\x1b[K");
  });
});
