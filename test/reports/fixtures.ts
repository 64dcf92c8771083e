import { loadScenario } from "../../scenarios/index.js";
import type { Scenario } from "../../scenarios/schema.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import { buildRecord } from "../../harness/artifacts.js";
import type { HistoryEvent } from "../../sim/history.js";
import type { CompareCell, CompareMatrix, RunRecord } from "../../reports/types.js";
import { addRunAvailability, emptySweepAvailability, runAvailability } from "../../reports/availability.js";
import { scenarioOnDesign } from "../../harness/sweep/compare.js";
import type { AuditPage } from "../../reports/audit-page.js";
import { causeByName } from "../../causes/index.js";

/** What the report renderers take, from a real run. */
export interface RunFixture {
  scenario: Scenario;
  record: RunRecord;
  history: HistoryEvent[];
}

export function runFixture(s: Scenario, seed = s.seed): RunFixture {
  const run = runScenario(s, seed);
  const verdicts = runCheckers(run.history, checkContextFor(s));
  return { scenario: s, record: buildRecord(s, seed, run, verdicts), history: run.history };
}

export const HOSTILE = "<img src=x onerror=alert(1)>";

/** naive-gc-pause with markup where a scenario author (or attacker) controls the text. */
export function hostileScenario(): Scenario {
  const base = loadScenario("naive-gc-pause");
  return {
    ...base,
    name: "hostile",
    file: "/tmp/hostile.json",
    title: `${HOSTILE} title`,
    story: `</script><script>window.__pwned = 1</script> ${HOSTILE} <b onmouseover=alert(2)>story</b>`,
    workload: { ...base.workload, locks: [HOSTILE] },
    faults: base.faults.map((f) => ({ ...f, note: `${HOSTILE} note` })),
  };
}

/** 10 clients contending for 10 minutes: the size and speed case. */
export function longScenario(): Scenario {
  const base = loadScenario("naive-baseline");
  return {
    ...base,
    name: "naive-long",
    file: "/tmp/naive-long.json",
    durationMs: 600_000,
    clients: Array.from({ length: 10 }, (_, i) => ({ id: `c${i + 1}`, startMs: 0 })),
  };
}

/** 95% Wilson score interval (the tests' own, to build matrices without the sweep). */
export function wilson(k: number, n: number): [number, number] {
  if (n === 0) return [0, 1];
  const z = 1.959963984540054;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = (p + (z * z) / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [Math.max(0, c - h), Math.min(1, c + h)];
}

/**
 * A small real comparison: each scenario over `seeds` seeds (on its own design, or on
 * the design given as `[scenario, design]`, as \`lockstep compare\` runs it), its
 * failing seed's report path named by `reportPath`.
 */
export function smallMatrix(
  entries: Array<string | [string, string]>,
  seeds: number,
  reportPath: (scenario: string, seed: number) => string,
  onFailing?: (f: RunFixture) => void,
): CompareMatrix {
  const cells: CompareCell[] = [];
  const designs: string[] = [];
  const names: string[] = [];
  for (const entry of entries) {
    const [name, design] = typeof entry === "string" ? [entry, undefined] : entry;
    const base = loadScenario(name);
    const s = design ? scenarioOnDesign(base, design) : base;
    if (!designs.includes(s.design)) designs.push(s.design);
    if (!names.includes(name)) names.push(name);
    let availability = emptySweepAvailability();
    let violations = 0;
    let failingSeed: number | undefined;
    const byChecker: Record<string, number> = {};
    const outcomes = new Map<string, number>();
    for (let seed = 1; seed <= seeds; seed++) {
      const f = runFixture(s, seed);
      const v = f.record.verdicts;
      availability = addRunAvailability(availability, runAvailability(f.history, v.challenge.challenged));
      outcomes.set(v.outcome, (outcomes.get(v.outcome) ?? 0) + 1);
      for (const r of v.results) if (r.valid === false) byChecker[r.checker] = (byChecker[r.checker] ?? 0) + 1;
      if (v.safety === false) {
        violations++;
        if (failingSeed === undefined) {
          failingSeed = seed;
          onFailing?.(f);
        }
      }
    }
    cells.push({
      design: s.design,
      scenario: name,
      runs: seeds,
      violations,
      violationRate: violations / seeds,
      ci95: wilson(violations, seeds),
      byChecker,
      ...(failingSeed !== undefined ? { failingSeed, failingReport: reportPath(name, failingSeed) } : {}),
      outcome: [...outcomes].sort((a, b) => b[1] - a[1])[0]![0],
      availability,
    });
  }
  return { designs, scenarios: names, seeds: { from: 1, to: seeds }, cells };
}

/** An audit page with one cause whose counterexample's replay is a long path with no break for its first 60 characters. */
export function auditPageWithLongReplay(): AuditPage {
  const c = causeByName("holds-ignores-validity")!;
  const replay = "npx lockstep run /home/someone/projects/mylock/runs/audit/counterexamples/holds-ignores-validity/attack-holder-partitioned.json --seed 2";
  return {
    lock: "my-lock.ts",
    reference: "setnx-reference (reference)",
    seeds: 3,
    rows: [],
    unexplained: [],
    causes: [
      {
        id: c.name,
        title: c.title,
        meaning: c.meaning,
        fix: c.fix,
        fixCode: c.fixCode,
        source: c.source,
        sentence: "c1 reported a validity ending at 1.002 s, yet went on believing it held the lock until 1.505 s.",
        attacks: [{ attack: "holder-partitioned", runs: 3, unsafeRate: 1, unsafeCi95: [0.44, 1], referenceUnsafeRate: 0, explained: 3, diagnosed: 3 }],
        counterexample: { attack: "holder-partitioned", seed: 2, title: c.title, faults: ["cut redis-1->c1 for 1500 ms"], evidence: "a lost update", replay },
      },
    ],
  };
}
