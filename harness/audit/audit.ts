import { ATTACKS, type Attack, type CompiledScenario, type LockUnderTest } from "../../attacks/index.js";
import { parseScenario, type Scenario } from "../../scenarios/schema.js";
import { runScenario } from "../runner.js";
import { SimulationStopError } from "../../sim/errors.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../check-context.js";
import { wilson95 } from "../sweep/wilson.js";

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
  /** Of the seeds unsafe here, how many the reference was unsafe on too. */
  referenceUnsafe: number;
  finding: Finding;
  /** The first seed whose run is the finding's evidence (unsafe here; safe in the reference for "your code"). */
  counterexampleSeed?: number;
  scenario?: CompiledScenario;
}

const UNSAFE = new Set(["unsafe", "unsafe-but-fenced"]);

/** The recipe this lock's backend is judged against: compare-and-delete SET NX PX on one node, Redlock on N, a Raft design's own. */
export function referenceOf(lock: LockUnderTest): LockUnderTest {
  const nodes = typeof lock.designOptions?.nodes === "number" ? lock.designOptions.nodes : undefined;
  if (lock.design === "redlock" || (lock.design === "library" && nodes !== undefined && nodes > 1)) {
    return { design: "redlock", ...(nodes ? { designOptions: { nodes } } : {}), label: "redlock (reference)" };
  }
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
  const theirs = attack.compile(ref);
  const s = scenarioOf(mine.scenario, attack.name);
  const r = theirs.ok ? scenarioOf(theirs.scenario, `${attack.name} reference`) : undefined;
  const counts: Record<string, number> = {};
  let unsafe = 0,
    challenged = 0,
    referenceUnsafe = 0;
  let yours: number | undefined, limit: number | undefined;
  for (let seed = 1; seed <= seeds; seed++) {
    const run = outcome(s, seed, mine.scenario.challenge, () => auditReplay(lock, attack.name, seed));
    const o = run.outcome;
    counts[o] = (counts[o] ?? 0) + 1;
    if (run.challenged) challenged++;
    if (!UNSAFE.has(o)) continue;
    unsafe++;
    const refUnsafe = r
      ? UNSAFE.has(
          outcome(r, seed, theirs.ok ? theirs.scenario.challenge : mine.scenario.challenge, () =>
            auditReplay({ design: ref.design, label: ref.design }, attack.name, seed),
          ).outcome,
        )
      : true;
    if (refUnsafe) {
      referenceUnsafe++;
      limit ??= seed;
    } else yours ??= seed;
  }
  const finding: Finding = yours !== undefined ? "your code" : limit !== undefined ? "known limit of this backend" : challenged > 0 ? "safe" : "not challenged";
  const counterexampleSeed = yours ?? limit;
  return {
    ...empty,
    runs: seeds,
    counts,
    unsafeRate: unsafe / seeds,
    unsafeCi95: wilson95(unsafe, seeds),
    challengedShare: challenged / seeds,
    referenceUnsafe,
    finding,
    ...(counterexampleSeed !== undefined ? { counterexampleSeed, scenario: { ...mine.scenario, seed: counterexampleSeed, expect: "unsafe" } } : {}),
  };
}

export function audit(lock: LockUnderTest, opts: { seeds: number; attacks?: readonly Attack[] }): AttackRow[] {
  return (opts.attacks ?? ATTACKS).map((a) => auditAttack(a, lock, opts.seeds));
}
