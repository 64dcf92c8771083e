import { describe, expect, it } from "vitest";
import { renderComparePage } from "../../reports/compare-page.js";
import { formatCompareTable } from "../../reports/compare-table.js";
import type { CompareMatrix } from "../../reports/types.js";
import { HOSTILE, smallMatrix, wilson } from "./fixtures.js";

function matrix(): CompareMatrix {
  return {
    designs: ["redis-setnx", "redlock", "raft-zk"],
    scenarios: ["naive-gc-pause", "redlock-clock-jump", HOSTILE],
    seeds: { from: 1, to: 200 },
    cells: [
      {
        design: "redis-setnx",
        scenario: "naive-gc-pause",
        runs: 200,
        violations: 200,
        violationRate: 1,
        ci95: wilson(200, 200),
        byChecker: { "mutual-exclusion": 200 },
        failingSeed: 1,
        failingReport: "runs/naive-gc-pause-seed1/report.html",
        outcome: "unsafe",
      },
      {
        design: "redlock",
        scenario: "redlock-clock-jump",
        runs: 200,
        violations: 7,
        violationRate: 0.035,
        ci95: wilson(7, 200),
        byChecker: { "mutual-exclusion": 7 },
        failingSeed: 42,
        failingReport: "runs/redlock-clock-jump-seed42/report.html",
        outcome: "safe",
      },
      { design: "raft-zk", scenario: "redlock-clock-jump", runs: 200, violations: 0, violationRate: 0, ci95: wilson(0, 200), byChecker: {}, outcome: "safe" },
      {
        design: "raft-zk",
        scenario: HOSTILE,
        runs: 200,
        violations: 1,
        violationRate: 0.005,
        ci95: wilson(1, 200),
        byChecker: {},
        failingSeed: 9,
        failingReport: `r/${HOSTILE}"/report.html`,
        outcome: "unsafe",
      },
    ],
  };
}

describe("comparison table (terminal)", () => {
  const text = formatCompareTable(matrix());
  const lines = text.trimEnd().split("\n");

  it("has a row per scenario and a column per design, aligned", () => {
    expect(lines[1]!.split(/\s{2,}/)).toEqual(["scenario", "redis-setnx", "redlock", "raft-zk"]);
    expect(lines).toHaveLength(3 + 3);
    const col = lines[1]!.indexOf("redlock");
    expect(lines[4]!.slice(col)).toMatch(/^7\/200 3\.5% \[\d\.\d%–\d\.\d%\] seed 42/);
  });

  it("shows count, rate, interval and a failing seed; a dash where nothing ran", () => {
    expect(lines[3]).toMatch(/^naive-gc-pause\s+200\/200 100% \[98%–100%\] seed 1\s+—\s+—$/);
    expect(lines[4]).toMatch(/0\/200 0% \[0%–1\.9%\]$/);
  });
});

describe("comparison page", () => {
  const html = renderComparePage(matrix());

  it("links each failing cell to its seed's run report, and no other cell", () => {
    const links = [...html.matchAll(/<a class="seed" href="([^"]*)">seed (\d+) →<\/a>/g)].map((m) => [m[1], m[2]]);
    expect(links).toEqual([
      ["runs/naive-gc-pause-seed1/report.html", "1"],
      ["runs/redlock-clock-jump-seed42/report.html", "42"],
      [`r/&lt;img src=x onerror=alert(1)&gt;&quot;/report.html`, "9"],
    ]);
  });

  it("shows each cell's rate with its interval, and marks empty cells", () => {
    const cells = [...html.matchAll(/<td class="cell (\w+)"/g)].map((m) => m[1]);
    // 3 scenarios x 3 designs, row by row.
    expect(cells).toEqual(["high", "empty", "empty", "empty", "low", "zero", "empty", "empty", "low"]);
    expect(html.includes('3.5%</span> <span class="ci-text">[')).toBe(true);
    expect(html.includes("reaches <b>1.9%</b>")).toBe(true);
  });

  it("tells a fenced cell (the data was protected) from an unsafe one", () => {
    const m: CompareMatrix = {
      designs: ["redis-fenced"],
      scenarios: ["naive-gc-pause-fenced"],
      seeds: { from: 1, to: 10 },
      cells: [
        {
          design: "redis-fenced",
          scenario: "naive-gc-pause-fenced",
          runs: 10,
          violations: 10,
          violationRate: 1,
          ci95: wilson(10, 10),
          byChecker: {},
          failingSeed: 1,
          outcome: "unsafe-but-fenced",
        },
      ],
    };
    expect(/<td class="cell fenced"/.test(renderComparePage(m))).toBe(true);
    m.cells[0]!.outcome = "unsafe";
    expect(/<td class="cell high"/.test(renderComparePage(m))).toBe(true);
  });

  it("a 0% cell in which no second client ever got near a hold says 'not challenged', not safe", () => {
    const zero = {
      design: "redlock",
      scenario: "naive-gc-pause",
      runs: 20,
      violations: 0,
      violationRate: 0,
      ci95: wilson(0, 20),
      byChecker: {},
      outcome: "safe",
    };
    const m: CompareMatrix = {
      designs: ["redlock"],
      scenarios: ["naive-gc-pause"],
      seeds: { from: 1, to: 20 },
      cells: [{ ...zero, availability: { grants: 20, failedAcquires: 20, idleWhileWaitingUs: 25_000, challengedRuns: 0 } }],
    };
    const page = renderComparePage(m);
    expect(/<td class="cell unchallenged"/.test(page)).toBe(true);
    expect(/<td class="cell zero"/.test(page)).toBe(false);
    expect(page).toContain("not challenged");
    expect(page).toContain("20 grants · 20 failed acquires · 1.3 ms per run without a holder while someone waited");
    expect(formatCompareTable(m)).toMatch(/0\/20 0% \[0%–16%\] not challenged/);
    // Challenged in some runs: a zero cell, with the count said.
    m.cells[0]!.availability!.challengedRuns = 5;
    const partly = renderComparePage(m);
    expect(/<td class="cell zero"/.test(partly)).toBe(true);
    expect(partly).toContain("challenged in 5 of 20 runs");
    expect(formatCompareTable(m)).toContain("challenged 5/20");
    // Challenged in every run: no caveat.
    m.cells[0]!.availability!.challengedRuns = 20;
    expect(renderComparePage(m)).not.toMatch(/not challenged:|challenged in/);
  });

  it("real runs: naive-gc-pause on redlock is not challenged (c2 gives up), on redis-setnx it is and fails", () => {
    const m = smallMatrix([["naive-gc-pause", "redlock"], "naive-gc-pause"], 2, (s, seed) => `${s}-${seed}.html`);
    const redlock = m.cells.find((c) => c.design === "redlock")!;
    expect(redlock.violations).toBe(0);
    expect(redlock.availability!.challengedRuns).toBe(0);
    expect(redlock.availability!.failedAcquires).toBeGreaterThan(0);
    const naive = m.cells.find((c) => c.design === "redis-setnx")!;
    expect(naive.violations).toBe(2);
    expect(naive.availability!.challengedRuns).toBe(2);
    const cells = [...renderComparePage(m).matchAll(/<td class="cell (\w+)"/g)].map((x) => x[1]);
    expect(cells).toEqual(["unchallenged", "high"]);
  });

  it("a '—' cell says why it was not run", () => {
    const m = matrix();
    m.skipped = [{ design: "redlock", scenario: "naive-gc-pause", reason: 'workload.fencing: design "redlock" issues no tokens' }];
    const page = renderComparePage(m);
    expect(page).toContain('<span class="why">not run: workload.fencing: design &quot;redlock&quot; issues no tokens</span>');
    expect(page).toContain('<span class="why">not asked for');
  });

  it("escapes names and needs no script", () => {
    expect(html.includes("<img")).toBe(false);
    expect(html.includes("&lt;img src=x onerror=alert(1)&gt;")).toBe(true);
    expect(/<script/.test(html)).toBe(false);
  });
});
