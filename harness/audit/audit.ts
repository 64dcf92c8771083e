import { ATTACKS, type Attack, type Compiled, type CompiledScenario, type LockUnderTest } from "../../attacks/index.js";
import { parseScenario, type Scenario } from "../../scenarios/schema.js";
import { runScenario } from "../runner.js";
import { SimulationStopError } from "../../sim/errors.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../check-context.js";
import { wilson95 } from "../sweep/wilson.js";
import { adapterPath } from "../../designs/library/adapter.js";

/**
 * The audit: every applicable attack x seeds on the lock under test and, seed for seed,
 * on the backend's reference recipe. A seed unsafe here and safe in the reference is
 * the lock's own code; unsafe in both is a limit of the backend.
 */
/**
 * What the audit makes of one attack on the lock: unsafe here but safe in the reference
 * (your code), unsafe in both (the backend's limit), never unsafe on a challenged run
 * (safe), never challenged at all (nothing was tested), or refused for this lock.
 */
export type Finding = "your code" | "known limit of this backend" | "safe" | "not challenged" | "refused";

export interface AttackRow {
  attack: string;
  refused?: string;
  runs: number;
  counts: Record<string, number>;
  unsafeRate: number;
  unsafeCi95: [number, number];
  challengedShare: number;
  reference: string;
  /** Seeds (of `runs`) the reference recipe was unsafe on under the same attack. */
  referenceUnsafe: number;
  finding: Finding;
  /** The first seed whose run is the finding's evidence (unsafe here; safe in the reference for "your code"). */
  counterexampleSeed?: number;
  scenario?: CompiledScenario;
}

const UNSAFE = new Set(["unsafe", "unsafe-but-fenced"]);

/**
 * The recipe this lock's backend is judged against. A library is judged against a
 * reference library over the same simulated client (the seeds' SET NX PX recipe on one
 * node, node-redlock on N), so both runs share the client's timing; a built-in design
 * against the seeds' model: compare-and-delete SET NX PX, Redlock, a Raft design's own.
 */
export function referenceOf(lock: LockUnderTest): LockUnderTest {
  const nodes = typeof lock.designOptions?.nodes === "number" ? lock.designOptions.nodes : undefined;
  if (lock.design === "library") {
    const { adapter: _adapter, options: _options, ...node } = lock.designOptions ?? {};
    const adapter = nodes !== undefined && nodes > 1 ? "redlock-v5" : "setnx-reference";
    return { design: "library", designOptions: { ...node, adapter: adapterPath(adapter, "<audit>", "reference") }, label: `${adapter} (reference)` };
  }
  if (lock.design === "redlock") return { design: "redlock", ...(nodes ? { designOptions: { nodes } } : {}), label: "redlock (reference)" };
  if (lock.design === "raft-zk" || lock.design === "etcd-lease") return { design: lock.design, label: `${lock.design} (reference)` };
  return { design: "redis-setnx", label: "redis-setnx (reference)" };
}

/** The command that meets the same stop again: the audit of this attack up to this seed. */
function auditReplay(lock: LockUnderTest, attack: string, seed: number): string {
  const which = lock.design === "library" ? `--lock ${lock.label}` : `--design ${lock.label}`;
  const options = lock.design !== "library" && lock.designOptions ? ` --design-options '${JSON.stringify(lock.designOptions)}'` : "";
  return `npx lockstep audit ${which}${options} --attacks ${attack} --seeds ${seed}`;
}

function outcome(s: Scenario, seed: number, challenge: CompiledScenario["challenge"], replay: () => string): { outcome: string; challenged: boolean } {
  let out: ReturnType<typeof runScenario>;
  try {
    out = runScenario(s, seed);
  } catch (e) {
    // The run's own replay would name the compiled scenario, which exists only in memory.
    if (e instanceof SimulationStopError) e.replay = { scenario: s.name, seed, command: replay() };
    throw e;
  }
  const v = runCheckers(out.history, checkContextFor({ ...s, challenge } as Scenario));
  return { outcome: v.outcome, challenged: v.challenge.challenged };
}

function scenarioOf(c: CompiledScenario, what: string): Scenario {
  return parseScenario(JSON.parse(JSON.stringify(c)), `<attack ${what}>`);
}

/** One attack's runs: each seed's outcome here and, seed for seed, on the reference. */
interface SeedPairs {
  counts: Record<string, number>;
  challenged: number;
  unsafe: number[];
  referenceUnsafe: number[];
}

function runPairs(attack: string, lock: LockUnderTest, seeds: number, mine: CompiledScenario, theirs: Compiled): SeedPairs {
  const ref = referenceOf(lock);
  const s = scenarioOf(mine, attack);
  const r = theirs.ok ? scenarioOf(theirs.scenario, `${attack} reference`) : undefined;
  const refChallenge = theirs.ok ? theirs.scenario.challenge : mine.challenge;
  const pairs: SeedPairs = { counts: {}, challenged: 0, unsafe: [], referenceUnsafe: [] };
  for (let seed = 1; seed <= seeds; seed++) {
    const run = outcome(s, seed, mine.challenge, () => auditReplay(lock, attack, seed));
    pairs.counts[run.outcome] = (pairs.counts[run.outcome] ?? 0) + 1;
    if (run.challenged) pairs.challenged++;
    if (UNSAFE.has(run.outcome)) pairs.unsafe.push(seed);
    const refOut = r
      ? outcome(r, seed, refChallenge, () => auditReplay({ design: ref.design, label: ref.label.replace(/ \(reference\)$/, "") }, attack, seed)).outcome
      : "unsafe";
    if (UNSAFE.has(refOut)) pairs.referenceUnsafe.push(seed);
  }
  return pairs;
}

/**
 * Whose fault an unsafe attack is. Seed for seed the two runs differ in timing, so one
 * seed safe in the reference proves little; the rates decide. The reference never
 * unsafe, or unsafe so much less often that the 95% intervals do not meet: your code.
 * Otherwise the backend's own limit explains what was seen.
 */
export function findingOf(p: SeedPairs, seeds: number): Finding {
  if (p.unsafe.length === 0) return p.challenged > 0 ? "safe" : "not challenged";
  if (p.referenceUnsafe.length === 0) return "your code";
  const mine = wilson95(p.unsafe.length, seeds);
  const theirs = wilson95(p.referenceUnsafe.length, seeds);
  return mine[0] > theirs[1] ? "your code" : "known limit of this backend";
}

export function auditAttack(attack: Attack, lock: LockUnderTest, seeds: number): AttackRow {
  const ref = referenceOf(lock);
  const empty = {
    attack: attack.name,
    runs: 0,
    counts: {},
    unsafeRate: 0,
    unsafeCi95: [0, 0] as [number, number],
    challengedShare: 0,
    reference: ref.label,
    referenceUnsafe: 0,
    finding: "refused" as Finding,
  };
  const mine = attack.compile(lock);
  if (!mine.ok) return { ...empty, refused: mine.refusal };
  const p = runPairs(attack.name, lock, seeds, mine.scenario, attack.compile(ref));
  const finding = findingOf(p, seeds);
  const refSafe = p.unsafe.filter((seed) => !p.referenceUnsafe.includes(seed));
  const counterexampleSeed = finding === "your code" ? (refSafe[0] ?? p.unsafe[0]) : (p.unsafe.find((seed) => p.referenceUnsafe.includes(seed)) ?? p.unsafe[0]);
  return {
    ...empty,
    runs: seeds,
    counts: p.counts,
    unsafeRate: p.unsafe.length / seeds,
    unsafeCi95: wilson95(p.unsafe.length, seeds),
    challengedShare: p.challenged / seeds,
    referenceUnsafe: p.referenceUnsafe.length,
    finding,
    ...(counterexampleSeed !== undefined ? { counterexampleSeed, scenario: { ...mine.scenario, seed: counterexampleSeed, expect: "unsafe" } } : {}),
  };
}

export function audit(lock: LockUnderTest, opts: { seeds: number; attacks?: readonly Attack[] }): AttackRow[] {
  return (opts.attacks ?? ATTACKS).map((a) => auditAttack(a, lock, opts.seeds));
}
