import type { Attack, LockUnderTest } from "../../attacks/index.js";
import type { Scenario } from "../../scenarios/schema.js";
import { SimulationStopError } from "../../sim/errors.js";
import { SweepPool } from "../sweep/pool.js";
import { emptyRow, pairsOf, planAttack, rowOf, runLocally, type AttackRow, type RunOutcome } from "./audit.js";

type RunSeeds = (s: Scenario, replay: (seed: number) => string) => Promise<RunOutcome[]>;

/**
 * The audit with `workers` workers: this thread and the sweep engine's worker threads.
 * Each attack's scenario and its reference go to one pool in turn, seeds 1..N each;
 * results come back in seed order, so the rows do not depend on the worker count.
 * `onRow` sees each row as it is made (progress, counterexamples).
 */
export async function auditOnThreads(
  lock: LockUnderTest,
  o: { seeds: number; attacks: readonly Attack[]; workers: number; onRow?: (row: AttackRow) => Promise<AttackRow> | AttackRow },
): Promise<AttackRow[]> {
  let pool: SweepPool | undefined;
  const seeds = Array.from({ length: o.seeds }, (_, i) => i + 1);
  const onPool: RunSeeds = async (s, replay) => {
    if (pool === undefined) pool = new SweepPool(s, o.workers);
    else pool.useScenario(s);
    try {
      return (await pool.runSeeds(seeds)).map((r) => ({ outcome: r.outcome, challenged: r.availability.challenged }));
    } catch (e) {
      // The run's own replay would name the compiled scenario, which exists only in memory.
      if (e instanceof SimulationStopError && e.replay) e.replay = { ...e.replay, command: replay(e.replay.seed) };
      throw e;
    }
  };
  const run: RunSeeds = o.workers > 1 ? onPool : async (s, replay) => runLocally(s, o.seeds, replay);
  const rows: AttackRow[] = [];
  try {
    for (const attack of o.attacks) {
      const plan = planAttack(attack, lock);
      let row: AttackRow;
      if ("refused" in plan) row = { ...emptyRow(attack.name, lock), refused: plan.refused };
      else {
        const here = await run(plan.here, plan.replay);
        const there = plan.reference ? await run(plan.reference, plan.referenceReplay) : undefined;
        row = rowOf(attack.name, lock, plan.compiled, pairsOf(here, there));
      }
      rows.push(o.onRow ? await o.onRow(row) : row);
    }
  } finally {
    await pool?.close();
  }
  return rows;
}
