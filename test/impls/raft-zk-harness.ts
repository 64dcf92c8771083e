/**
 * Shared by the Raft-ZK and etcd-lease scenario tests: run a scenario on a seed and
 * classify it; sweep seeds; the property that server-side faults alone never give
 * two holders.
 */
import { expect } from "vitest";
import fc from "fast-check";
import { runScenario } from "../../sim/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../cli/check-context.js";
import { allScenarios } from "../../scenarios/index.js";
import type { Scenario } from "../../scenarios/schema.js";
import { faultScheduleArb } from "../../sim/explore/arbitraries.js";
import { designByName } from "../../impls/index.js";

export const SWEEP_SEEDS = 200;

export function outcomeOf(s: Scenario, seed: number) {
  const out = runScenario(s, seed);
  const v = runCheckers(out.history, checkContextFor(s));
  const me = v.results.find((r) => r.checker === "mutual-exclusion");
  return { outcome: v.outcome, mutualExclusion: me?.valid, history: out.history, meta: out.meta, verdicts: v };
}

export function scenariosOf(design: string): Scenario[] {
  return allScenarios().filter((s) => s.design === design && s.file.includes(`scenarios/${design}/`));
}

/** Seeds 1..n whose outcome differs from the scenario's expectation (empty: all as expected). */
export function sweep(s: Scenario, n = SWEEP_SEEDS): { unexpected: Array<{ seed: number; outcome: string }>; counts: Record<string, number> } {
  const unexpected: Array<{ seed: number; outcome: string }> = [];
  const counts: Record<string, number> = {};
  for (let seed = 1; seed <= n; seed++) {
    const { outcome } = outcomeOf(s, seed);
    counts[outcome] = (counts[outcome] ?? 0) + 1;
    if (outcome !== s.expect) unexpected.push({ seed, outcome });
  }
  return { unexpected, counts };
}

/**
 * fast-check: random schedules of server-only faults (crashes and restarts, pauses,
 * isolations, partitions and lossy links among servers, clock jumps and drift on
 * servers) on the baseline scenario; no run may show two holders.
 */
export function assertNoDoubleHolderUnderServerFaults(base: Scenario, numRuns: number, seed: number): void {
  const design = designByName(base.design)!;
  const o = design.parseOptions(base.designOptions, base.file, "designOptions") as { nodes: number };
  const prefix = base.design === "raft-zk" ? "zk" : "etcd";
  const servers = Array.from({ length: o.nodes }, (_, i) => `${prefix}-${i + 1}`);
  const space = {
    servers,
    clients: base.clients.map((c) => c.id),
    durationMs: base.durationMs,
    ttlMs: base.workload.ttlMs,
    serverOnly: true,
    stepsMax: 5,
  };
  fc.assert(
    fc.property(faultScheduleArb(space), fc.integer({ min: 1, max: 1_000_000 }), (faults, runSeed) => {
      const s: Scenario = { ...base, name: `${base.name}-server-faults`, faults };
      const r = outcomeOf(s, runSeed);
      expect(r.mutualExclusion, `two holders with faults ${JSON.stringify(faults)} seed ${runSeed}`).toBe(true);
      expect(r.outcome).not.toBe("unsafe");
    }),
    { numRuns, seed },
  );
}
