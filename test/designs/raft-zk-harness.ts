/**
 * Shared by the Raft-ZK and etcd-lease scenario tests: their scenarios, and the
 * property that server-side faults alone never give two holders. Running and sweeping
 * a scenario is test/helpers/scenario-sweep.ts (re-exported here).
 */
import { expect } from "vitest";
import fc from "fast-check";
import { allScenarios } from "../../scenarios/index.js";
import type { Scenario } from "../../scenarios/schema.js";
import { faultScheduleArb } from "../../harness/explore/arbitraries.js";
import { designByName } from "../../designs/index.js";
import { outcomeOf } from "../helpers/scenario-sweep.js";

export { outcomeOf, sweep, SWEEP_SEEDS } from "../helpers/scenario-sweep.js";

export function scenariosOf(design: string): Scenario[] {
  return allScenarios().filter((s) => s.design === design && s.file.includes(`scenarios/${design}/`));
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
