import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../cli/main.js";
import { EXIT } from "../harness/exit-codes.js";
import { captureStdio } from "./helpers/capture-stdio.js";
import { resultFields, type SweepSummary } from "../harness/sweep/summary.js";

const io = captureStdio();

const tmp = () => mkdtempSync(join(tmpdir(), "lockstep-sweep-"));
const readSummary = (dir: string): SweepSummary => JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));

describe("lockstep sweep", () => {
  it("1,000 seeds of naive-gc-pause: every run unsafe, as expected; reports, seed and replay; 4 shards merged give the same summary", async () => {
    const dir = join(tmp(), "whole");
    const code = await main(["sweep", "naive-gc-pause", "--seeds", "1..1000", "--workers", "2", "--out", dir]);
    expect(code).toBe(EXIT.safetyViolation);
    const s = readSummary(dir);
    expect(s.runs).toBe(1000);
    expect(s.safety.violations).toBe(1000);
    expect(s.safety.ci95[0]).toBeGreaterThan(0.996);
    expect(s.checkers["mutual-exclusion"]!.violations).toBe(1000);
    expect(s.liveness.violations).toBe(0);
    expect(s.outcomes).toEqual({ unsafe: 1000 });
    expect(s.expected).toEqual({ verdict: "unsafe", matched: 1000, rate: 1 });
    expect(s.failingSeeds).toEqual({ count: 1000, first: Array.from({ length: 20 }, (_, i) => i + 1), limit: 20 });
    expect(s.execution.reports).toHaveLength(10);
    for (const r of s.execution.reports) expect(existsSync(join(r.dir, "report.html"))).toBe(true);
    expect(io.out).toMatch(/mutual-exclusion\s+1000\/1000\s+100\.0%\s+\[99\.6%, 100\.0%\]/);
    expect(io.out).toContain("seed: 1\nreplay: npx lockstep run naive-gc-pause --seed 1");
    // stderr is not a terminal here: no bar; plain progress lines (one per 5 s of wall time, so
    // how many depends on the machine's speed: none idle, several under load), then the final line.
    expect(io.err).not.toContain("\r");
    const errLines = io.err.split("\n");
    expect(errLines.pop()).toBe("");
    expect(errLines.pop()).toMatch(/^sweep naive-gc-pause: 1000\/1000 seeds in [\d.]+ s \(\d+ seeds\/s\), 1000 with a violation \(2 workers\)$/);
    for (const l of errLines) expect(l).toMatch(/^sweep naive-gc-pause: \d+\/1000 seeds, \d+ with a violation, \d+ s$/);

    const shards: string[] = [];
    for (const i of [1, 2, 3, 4]) {
      const d = join(tmp(), `shard-${i}`);
      expect(await main(["sweep", "naive-gc-pause", "--seeds", "1..1000", "--shard", `${i}/4`, "--workers", "1", "--out", d])).toBe(EXIT.safetyViolation);
      expect(readSummary(d).runs).toBe(250);
      shards.push(join(d, "summary.json"));
    }
    const mergedPath = join(tmp(), "merged.json");
    io.out = "";
    expect(await main(["merge", ...shards.reverse(), "--out", mergedPath, "--ok-if-expected"])).toBe(EXIT.ok);
    const merged = JSON.parse(readFileSync(mergedPath, "utf8")) as SweepSummary;
    expect(JSON.stringify(resultFields(merged))).toBe(JSON.stringify(resultFields(s)));
    expect(io.out).toContain("replay: npx lockstep run naive-gc-pause --seed 1");

    // Overlap and mismatch are refused with a clear line, exit 2.
    io.err = "";
    expect(await main(["merge", shards[0]!, shards[0]!])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/expected disjoint shards: shard 4\/4 \(seeds 751\.\.1000\) overlaps shard 4\/4/);
    const other = join(tmp(), "other");
    await main(["sweep", "naive-gc-pause-fenced", "--seeds", "1..8", "--workers", "1", "--out", other, "--reports", "0"]);
    io.err = "";
    expect(await main(["merge", shards[1]!, join(other, "summary.json")])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/expected shards of one scenario: .* is naive-gc-pause .* this is naive-gc-pause-fenced/);
  });

  it("Raft-ZK: the follower-clock bug is unsafe on every seed, the minority partition on none", async () => {
    const bug = join(tmp(), "bug");
    expect(await main(["sweep", "raft-zk-follower-clock-bug", "--seeds", "1..100", "--workers", "2", "--out", bug, "--ok-if-expected"])).toBe(EXIT.ok);
    const b = readSummary(bug);
    expect(b.safety.violations).toBe(100);
    expect(b.expected.matched).toBe(100);
    expect(io.out).toContain("replay: npx lockstep run raft-zk-follower-clock-bug --seed 1");

    const safe = join(tmp(), "safe");
    expect(await main(["sweep", "raft-zk-minority-partition", "--seeds", "1..20", "--workers", "2", "--out", safe])).toBe(EXIT.ok);
    const s = readSummary(safe);
    expect(s.safety.violations).toBe(0);
    expect(s.failingSeeds.count).toBe(0);
    expect(s.safety.ci95[1]).toBeGreaterThan(0.1); // 0 of 20 is not a proof: the interval says so
    expect(s.expected.matched).toBe(20);
    expect(s.replay).toBeUndefined();
  });

  it("draws a progress bar when stderr is a terminal", async () => {
    const was = Object.getOwnPropertyDescriptor(process.stderr, "isTTY");
    Object.defineProperty(process.stderr, "isTTY", { value: true, configurable: true });
    try {
      expect(await main(["sweep", "naive-gc-pause", "--seeds", "1..30", "--workers", "1", "--out", tmp(), "--reports", "0"])).toBe(EXIT.safetyViolation);
    } finally {
      if (was) Object.defineProperty(process.stderr, "isTTY", was);
      else delete (process.stderr as { isTTY?: boolean }).isTTY;
    }
    expect(io.err).toMatch(/\rsweep naive-gc-pause \[#+-*\] \d+\/30 /);
    expect(io.err).toMatch(/\rsweep naive-gc-pause: 30\/30 seeds in .*\n$/);
  });

  it("rejects bad ranges, shards and worker counts with exit 2 and the flag named", async () => {
    for (const [args, msg] of [
      [["--seeds", "5..2"], /--seeds: expected A\.\.B with A <= B, got "5\.\.2"/],
      [["--seeds", "1..10", "--shard", "5/4"], /--shard: expected i\/n with 1 <= i <= n, got "5\/4"/],
      [["--seeds", "1..10", "--shard", "two"], /--shard: expected i\/n/],
      [["--seeds", "1..10", "--workers", "0"], /--workers: expected a positive integer/],
      [["--seeds", "1..18446744073709551616"], /--seeds: expected seeds at most 9007199254740991/],
      [["--seeds", "1..10", "--workers", "1000"], /--workers: expected at most \d+ \(this machine's cores\), got 1000/],
    ] as const) {
      io.err = "";
      expect(await main(["sweep", "naive-gc-pause", ...args])).toBe(EXIT.badInput);
      expect(io.err).toMatch(msg);
    }
    io.err = "";
    expect(await main(["merge", join(tmp(), "nope.json")])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/nope\.json: \(file\): expected a readable summary\.json/);
  });
});

describe("lockstep compare", () => {
  it("writes compare.html, matrix.json and a failing report per cell; a scenario that does not fit a design leaves its cell empty", async () => {
    const dir = tmp();
    const code = await main([
      "compare",
      "--designs",
      "redis-setnx,redis-fenced",
      "--scenarios",
      "naive-gc-pause,naive-gc-pause-fenced,naive-baseline",
      "--seeds",
      "8",
      "--workers",
      "1",
      "--out",
      dir,
    ]);
    expect(code).toBe(EXIT.ok);
    expect(existsSync(join(dir, "compare.html"))).toBe(true);
    const m = JSON.parse(readFileSync(join(dir, "matrix.json"), "utf8"));
    expect(m.seeds).toEqual({ from: 1, to: 8 });
    expect(m.cells).toHaveLength(5);
    expect(m.skipped).toEqual([{ design: "redis-setnx", scenario: "naive-gc-pause-fenced", reason: expect.stringMatching(/no fencing token/) }]);
    const cell = (d: string, s: string) => m.cells.find((c: { design: string; scenario: string }) => c.design === d && c.scenario === s);
    expect(cell("redis-setnx", "naive-gc-pause")).toMatchObject({ runs: 8, violations: 8, violationRate: 1, outcome: "unsafe", failingSeed: 1 });
    expect(cell("redis-fenced", "naive-gc-pause-fenced")).toMatchObject({ violations: 8, outcome: "unsafe-but-fenced" });
    expect(cell("redis-setnx", "naive-baseline")).toMatchObject({ violations: 0, outcome: "safe" });
    expect(cell("redis-setnx", "naive-baseline").failingReport).toBeUndefined();
    for (const c of m.cells.filter((x: { failingReport?: string }) => x.failingReport)) expect(existsSync(join(dir, c.failingReport))).toBe(true);
    const html = readFileSync(join(dir, "compare.html"), "utf8");
    expect(html).toContain(cell("redis-setnx", "naive-gc-pause").failingReport);
    // The cross-design cell replays from its own file (the scenario on the other design).
    expect(io.out).toContain(
      `redis-fenced × naive-gc-pause (safety violated in 8/8): seed 1 — npx lockstep run ${join(dir, "cells", "redis-fenced", "naive-gc-pause", "naive-gc-pause.json")} --seed 1`,
    );
    expect(io.out).toContain("redis-setnx × naive-gc-pause (safety violated in 8/8): seed 1 — npx lockstep run naive-gc-pause --seed 1");
  });

  it("rejects an unknown design", async () => {
    expect(await main(["compare", "--designs", "nope", "--seeds", "3"])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/--designs: unknown design "nope"/);
  });
});
