import type { Arbitrary } from "fast-check";
import type { CompiledScenario, LockUnderTest } from "../../attacks/index.js";
import { baseScenario, leaseMsOf, lockServersOf } from "../../attacks/lease.js";
import { parseScenario, type Scenario } from "../../scenarios/schema.js";
import { fastCheck } from "../lazy-fast-check.js";
import { faultScheduleArb } from "../explore/arbitraries.js";
import { describeStep, scenarioToJson } from "../explore/scenario-file.js";
import { Differential } from "../explore/differential.js";
import { isUnsafe } from "./counterexample.js";
import { emptyRow, referenceOf, DIAGNOSED_SEEDS_MAX, type AttackRow } from "./audit.js";
import { wilson95 } from "../sweep/wilson.js";

/**
 * `audit --explore N`: beyond the written attacks, N generated schedules over the lock's
 * whole API — acquire, release, extend before the write, renewals through a long hold,
 * holds() checked before the write — in the workloads a user runs (short holds, long holds
 * kept alive by renewal, waiters that try once, wait a little or wait long) under a
 * random fault schedule. Each schedule unsafe on its own seed is judged against the
 * reference recipe on paired seeds (harness/explore/differential.ts); each one that is the
 * lock's own becomes a "your code" row ("explore-k") the audit explains by cause like
 * an attack's.
 */

/** What one draw varies besides the faults: the workload shape, in lease multiples. */
interface Shape {
  seed: number;
  /** Each client's work between read and write, in leases (3 clients). */
  work: [number, number, number];
  /** How long a waiter waits, in leases (0: one try). */
  wait: number;
  /** Renew every third of the lease while working (long holds kept alive). */
  renew: boolean;
  /** Extend by a lease just before the write. */
  extend: boolean;
}

export interface ExploreSummary {
  draws: number;
  seed: number;
  /** Schedules unsafe on their own seed, judged on paired seeds. */
  judged: number;
  /** Of those, the lock's own (its rate's interval above the reference's). */
  found: number;
}

/** The generated schedules' findings, as rows after the attacks'. */
export function exploreRows(
  lock: LockUnderTest,
  o: { draws: number; seed: number; note?: (line: string) => void },
): { rows: AttackRow[]; summary: ExploreSummary } {
  const ref = referenceOf(lock);
  const diff = new Differential(isUnsafe, ref);
  const draws = fastCheck().sample(drawArb(lock), { seed: o.seed, numRuns: o.draws });
  const rows: AttackRow[] = [];
  draws.forEach(([shape, faults], i) => {
    const s = scenarioOf(lock, shape, faults);
    const before = diff.judged.length;
    if (!diff.search(s, shape.seed)) return;
    const r = diff.judged[before]!;
    o.note?.(`explore draw ${i + 1}/${o.draws}: unsafe ${r.here}/${r.seeds} here, ${r.there}/${r.seeds} on the reference`);
    rows.push(rowOf(`explore-${i + 1}`, lock, s, r));
  });
  return { rows, summary: { draws: o.draws, seed: o.seed, judged: diff.judged.length, found: rows.length } };
}

function drawArb(lock: LockUnderTest): Arbitrary<[Shape, CompiledScenario["faults"]]> {
  const fc = fastCheck();
  const leaseMs = leaseMsOf(lock);
  const work = fc.constantFrom(0.005, 0.3, 0.8, 1.5, 2.5);
  const shape: Arbitrary<Shape> = fc.record({
    seed: fc.integer({ min: 1, max: 1_000_000 }),
    work: fc.tuple(work, work, work),
    wait: fc.constantFrom(0, 0.3, 4),
    renew: fc.boolean(),
    extend: fc.boolean(),
  });
  const space = { servers: lockServersOf(lock), clients: ["c1", "c2", "c3"], durationMs: leaseMs * 6, ttlMs: leaseMs, serverOnly: false, stepsMax: 3 };
  return fc.tuple(shape, faultScheduleArb(space));
}

function scenarioOf(lock: LockUnderTest, shape: Shape, faults: CompiledScenario["faults"]): Scenario {
  const leaseMs = leaseMsOf(lock);
  const ms = (leases: number): number => Math.max(1, Math.round(leases * leaseMs));
  // One name for every draw and lock: a run's dice come from the seed, so both sides meet the same schedule.
  const s = baseScenario(lock, "audit-explore", "A generated schedule over the lock's whole API", exploreStory(shape));
  s.clients = shape.work.map((w, i) => ({ id: `c${i + 1}`, startMs: i * Math.round(leaseMs / 3), workMs: ms(w) }));
  Object.assign(s.workload, {
    waitMs: ms(shape.wait),
    thinkMs: Math.round(leaseMs / 10),
    renewEveryMs: shape.renew ? Math.round(leaseMs / 3) : 0,
    extendTtlMs: shape.extend ? leaseMs : 0,
    validityCheck: "before-read-and-write",
  });
  s.faults = faults;
  return parseScenario(JSON.parse(JSON.stringify(s)), "<audit --explore>");
}

function exploreStory(shape: Shape): string {
  return (
    `Three clients take turns on one lock, working ${shape.work.join(", ")} leases each between read and write` +
    `${shape.renew ? ", renewing every third of the lease" : ""}${shape.extend ? ", extending by a lease before the write" : ""}; ` +
    `a waiter ${shape.wait === 0 ? "tries once" : `waits up to ${shape.wait} leases`}, and each checks holds() before it writes. The faults are drawn at random.`
  );
}

/** A found schedule as an audit row: its paired rates, the seeds unsafe here and safe there as its evidence. */
function rowOf(name: string, lock: LockUnderTest, s: Scenario, r: ReturnType<Differential["rates"]>): AttackRow {
  const evidence = r.evidenceSeeds.slice(0, DIAGNOSED_SEEDS_MAX);
  const compiled = { ...scenarioToJson(s), seed: evidence[0] ?? r.seed, expect: "unsafe" } as unknown as CompiledScenario;
  return {
    ...emptyRow(name, lock),
    runs: r.seeds,
    counts: { unsafe: r.here, other: r.seeds - r.here },
    unsafeRate: r.here / r.seeds,
    unsafeCi95: wilson95(r.here, r.seeds),
    challengedShare: 1,
    referenceUnsafe: r.there,
    finding: "your code",
    counterexampleSeed: evidence[0] ?? r.seed,
    evidenceSeeds: evidence,
    scenario: compiled,
    generated: { story: s.story, faults: s.faults.map((f) => describeStep(f)) },
  };
}
