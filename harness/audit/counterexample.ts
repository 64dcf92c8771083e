import { join, relative } from "node:path";
import type { LockUnderTest } from "../../attacks/index.js";
import { parseScenario, type Scenario } from "../../scenarios/schema.js";
import { runScenario } from "../runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../check-context.js";
import { shrinkScenario } from "../explore/shrink.js";
import { writeCounterexample, type WrittenCounterexample } from "../sweep/counterexample.js";
import { faultDef } from "../../faults/index.js";
import type { AttackRow } from "./audit.js";

const UNSAFE = new Set(["unsafe", "unsafe-but-fenced"]);
/** Runs a shrink may spend on one finding (each candidate costs one run, two for "your code"). */
const SHRINK_RUNS_MAX = 200;

export function isUnsafe(s: Scenario, seed: number): boolean {
  return UNSAFE.has(runCheckers(runScenario(s, seed).history, checkContextFor(s)).outcome);
}

/** Seeds the reference is tried on for one schedule: safe on one seed may be mere timing. */
export const REFERENCE_SEEDS = 4;

/** Whether the reference is unsafe under this schedule on `seed` or any of the next REFERENCE_SEEDS - 1. */
export function unsafeNear(s: Scenario, seed: number): boolean {
  for (let k = 0; k < REFERENCE_SEEDS; k++) if (isUnsafe(s, seed + k)) return true;
  return false;
}

/** The same scenario, schedule and seed on the reference recipe. */
export function onReference(s: Scenario, ref: Pick<LockUnderTest, "design" | "designOptions">): Scenario {
  const { lock: _lock, ...rest } = s;
  return { ...rest, design: ref.design, designOptions: ref.designOptions ?? {} };
}

/**
 * The finding's smallest counterexample: shrunk while it stays unsafe here and, for a
 * finding in the user's code, safe on the reference under the same schedule; written
 * as a replayable scenario file and its run report under dir/<attack>/.
 */
export function writeFinding(dir: string, row: AttackRow, ref: LockUnderTest, auditHtml?: string): WrittenCounterexample | undefined {
  if (!row.scenario || row.counterexampleSeed === undefined) return undefined;
  const seed = row.counterexampleSeed;
  const yours = row.finding === "your code";
  const violates = (s: Scenario, sd: number) => isUnsafe(s, sd) && (!yours || !isUnsafe(onReference(s, ref), sd));
  const start = parseScenario(JSON.parse(JSON.stringify(row.scenario)), `<attack ${row.attack}>`);
  const shrunk = shrinkScenario({ scenario: start, seed, runsMax: SHRINK_RUNS_MAX, violates }).scenario;
  // Titled by what it shows and the faults shrinking kept: never by a fault it removed.
  const faults = shrunk.faults.map((f) => faultDef(f.kind).describe(f));
  const what = yours ? "Your code, no cause in the catalogue explains it" : "A limit of this backend, unsafe in the reference recipe too";
  const title = `${what} (${row.attack}): ${faults.length > 0 ? faults.join("; ") : "no fault needed"}`;
  const runDir = join(dir, row.attack, "run");
  const anchor = yours ? `#unexplained-${row.attack}` : "";
  const finding = auditHtml ? { finding: { cause: row.attack, title: what, auditHref: `${relative(runDir, auditHtml)}${anchor}` } } : {};
  return writeCounterexample(join(dir, row.attack), { ...shrunk, title }, seed, violates, finding);
}
