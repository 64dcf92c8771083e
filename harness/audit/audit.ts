import { ATTACKS, profileOfLock, type Attack, type CompiledScenario, type LockUnderTest } from "../../attacks/index.js";
import { parseScenario, type Scenario } from "../../scenarios/schema.js";
import { runScenario } from "../runner.js";
import { SimulationStopError } from "../../sim/errors.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../check-context.js";
import { wilson95 } from "../sweep/wilson.js";
import { designByName } from "../../designs/index.js";

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
  /** For "your code": the first seeds unsafe here and safe in the reference (at most DIAGNOSED_SEEDS_MAX), diagnosed by cause. */
  evidenceSeeds?: number[];
  /** A schedule `audit --explore` generated (no attack of the catalogue): its story and its faults in words. */
  generated?: { story: string; faults: string[] };
  scenario?: CompiledScenario;
}

const UNSAFE = new Set(["unsafe", "unsafe-but-fenced"]);

/** Evidence seeds of one finding rerun with a trace and diagnosed: enough to name its causes, few enough to stay cheap. */
export const DIAGNOSED_SEEDS_MAX = 5;

/** The recipe this lock's backend is judged against, as its design declares it (designs/profile.ts). */
export function referenceOf(lock: LockUnderTest): LockUnderTest {
  return profileOfLock(lock).reference;
}

/** The command that meets the same stop again: the audit of this attack up to this seed. */
function auditReplay(lock: LockUnderTest, attack: string, seed: number): string {
  const byAdapter = designByName(lock.design)?.runs === "adapter";
  const which = byAdapter ? `--lock ${lock.label}` : `--design ${lock.label}`;
  const options = !byAdapter && lock.designOptions ? ` --design-options '${JSON.stringify(lock.designOptions)}'` : "";
  return `npx lockstep audit ${which}${options} --attacks ${attack} --seeds ${seed}`;
}

function outcome(s: Scenario, seed: number, replay: (seed: number) => string): RunOutcome {
  let out: ReturnType<typeof runScenario>;
  try {
    out = runScenario(s, seed);
  } catch (e) {
    // The run's own replay would name the compiled scenario, which exists only in memory.
    if (e instanceof SimulationStopError) e.replay = { scenario: s.name, seed, command: replay(seed) };
    throw e;
  }
  const v = runCheckers(out.history, checkContextFor(s));
  return { outcome: v.outcome, challenged: v.challenge.challenged };
}

function scenarioOf(c: CompiledScenario, what: string): Scenario {
  return parseScenario(JSON.parse(JSON.stringify(c)), `<attack ${what}>`);
}

/** One run's verdict as the audit needs it. */
export interface RunOutcome {
  outcome: string;
  challenged: boolean;
}

/** One attack's runs: each seed's outcome here and, seed for seed, on the reference. */
export interface SeedPairs {
  counts: Record<string, number>;
  challenged: number;
  unsafe: number[];
  referenceUnsafe: number[];
}

/** An attack compiled for the lock and for its reference, ready to run seeds 1..N on. */
export type AuditPlan =
  | { refused: string }
  | { compiled: CompiledScenario; here: Scenario; reference?: Scenario; replay(seed: number): string; referenceReplay(seed: number): string };

export function planAttack(attack: Attack, lock: LockUnderTest): AuditPlan {
  const mine = attack.compile(lock);
  if (!mine.ok) return { refused: mine.refusal };
  const ref = referenceOf(lock);
  const theirs = attack.compile(ref);
  const refLock = { design: ref.design, label: ref.label.replace(/ \(reference\)$/, "") };
  return {
    compiled: mine.scenario,
    here: scenarioOf(mine.scenario, attack.name),
    ...(theirs.ok ? { reference: scenarioOf(theirs.scenario, `${attack.name} reference`) } : {}),
    replay: (seed) => auditReplay(lock, attack.name, seed),
    referenceReplay: (seed) => auditReplay(refLock, attack.name, seed),
  };
}

/** Seeds 1..N of one scenario, in this thread. */
export function runLocally(s: Scenario, seeds: number, replay: (seed: number) => string): RunOutcome[] {
  const out: RunOutcome[] = [];
  for (let seed = 1; seed <= seeds; seed++) out.push(outcome(s, seed, replay));
  return out;
}

/** A reference the attack does not compile for counts as unsafe: the attack is beyond the backend. */
export function pairsOf(here: readonly RunOutcome[], there: readonly RunOutcome[] | undefined): SeedPairs {
  const pairs: SeedPairs = { counts: {}, challenged: 0, unsafe: [], referenceUnsafe: [] };
  here.forEach((run, i) => {
    const seed = i + 1;
    pairs.counts[run.outcome] = (pairs.counts[run.outcome] ?? 0) + 1;
    if (run.challenged) pairs.challenged++;
    if (UNSAFE.has(run.outcome)) pairs.unsafe.push(seed);
    if (there === undefined || UNSAFE.has(there[i]!.outcome)) pairs.referenceUnsafe.push(seed);
  });
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

export function emptyRow(attack: string, lock: LockUnderTest): AttackRow {
  return {
    attack,
    runs: 0,
    counts: {},
    unsafeRate: 0,
    unsafeCi95: [0, 0],
    challengedShare: 0,
    reference: referenceOf(lock).label,
    referenceUnsafe: 0,
    finding: "refused",
  };
}

/** The row of one attack from its runs here and on the reference. */
export function rowOf(attack: string, lock: LockUnderTest, compiled: CompiledScenario, p: SeedPairs): AttackRow {
  const seeds = Object.values(p.counts).reduce((a, b) => a + b, 0);
  const finding = findingOf(p, seeds);
  const refSafe = p.unsafe.filter((seed) => !p.referenceUnsafe.includes(seed));
  const counterexampleSeed = finding === "your code" ? (refSafe[0] ?? p.unsafe[0]) : (p.unsafe.find((seed) => p.referenceUnsafe.includes(seed)) ?? p.unsafe[0]);
  return {
    ...emptyRow(attack, lock),
    runs: seeds,
    counts: p.counts,
    unsafeRate: p.unsafe.length / seeds,
    unsafeCi95: wilson95(p.unsafe.length, seeds),
    challengedShare: p.challenged / seeds,
    referenceUnsafe: p.referenceUnsafe.length,
    finding,
    ...(counterexampleSeed !== undefined ? { counterexampleSeed, scenario: { ...compiled, seed: counterexampleSeed, expect: "unsafe" } } : {}),
    ...(finding === "your code" ? { evidenceSeeds: (refSafe.length > 0 ? refSafe : p.unsafe).slice(0, DIAGNOSED_SEEDS_MAX) } : {}),
  };
}

/** One attack, every seed, in this thread. */
export function auditAttack(attack: Attack, lock: LockUnderTest, seeds: number): AttackRow {
  const plan = planAttack(attack, lock);
  if ("refused" in plan) return { ...emptyRow(attack.name, lock), refused: plan.refused };
  const here = runLocally(plan.here, seeds, plan.replay);
  const there = plan.reference ? runLocally(plan.reference, seeds, plan.referenceReplay) : undefined;
  return rowOf(attack.name, lock, plan.compiled, pairsOf(here, there));
}

export function audit(lock: LockUnderTest, opts: { seeds: number; attacks?: readonly Attack[] }): AttackRow[] {
  return (opts.attacks ?? ATTACKS).map((a) => auditAttack(a, lock, opts.seeds));
}
