import { join } from "node:path";
import type { LockUnderTest } from "../../attacks/index.js";
import { runCheckers, type Outcome } from "../../checkers/run-all.js";
import { explainCounterexample, failureSignature, likeShipped, lockIdentity, type FailureSignature } from "../../reports/counterexample-story.js";
import { allScenarios } from "../../scenarios/index.js";
import type { Scenario } from "../../scenarios/schema.js";
import { buildRecord, writeRunArtifacts } from "../artifacts.js";
import { referenceOf } from "../audit/audit.js";
import { onReference } from "../audit/counterexample.js";
import { checkContextFor } from "../check-context.js";
import { runScenario } from "../runner.js";
import { runSeed } from "../sweep/run-seed.js";
import { scenarioFor, type ExploreResult } from "./explore.js";
import type { Differential } from "./differential.js";

/**
 * Explore's and shrink's runs beyond the search itself: the property, the reference recipe
 * and its run of a counterexample, and the story told from one run beside the shipped
 * scenarios that fail the same way. The commands print; this module runs and writes.
 */

/**
 * The property: a run violates it when the composed safety verdict is false, or, with
 * `checkers`, when one of those checkers fails (e.g. only mutual-exclusion: a double holder).
 */
export function violation(checkers?: readonly string[]): (s: Scenario, seed: number) => boolean {
  return (s, seed) => {
    const r = runSeed(s, seed);
    return checkers ? checkers.some((c) => r.checkers[c] === false) : r.safety === false;
  };
}

/** The recipe a library is compared with: the same client library running the seeds' recipe (harness/audit). */
export function referenceFor(base: Scenario): LockUnderTest {
  return referenceOf({ design: base.design, designOptions: base.designOptions as Record<string, unknown>, label: base.lock ?? base.design });
}

/**
 * The shrunk counterexample if paired rates over many seeds still say it is the lock's
 * own bug (shrinking judged candidates on a few seeds only), else the draw as found.
 */
export function judgedShrunk(result: ExploreResult, base: Scenario, diff: Differential): NonNullable<ExploreResult["counterexample"]> {
  const cx = result.counterexample!;
  if (diff.rates(cx.scenario, cx.seed).yours || !result.original) return cx;
  return { exploration: result.original, scenario: scenarioFor(base, result.original), seed: result.original.seed };
}

/** The reference's run of the counterexample's schedule and seed, written under dir/reference/. */
export function runReference(s: Scenario, reference: LockUnderTest, seed: number, dir: string): { outcome: Outcome; dir: string } {
  const ref = onReference(s, reference);
  const run = runScenario(ref, seed);
  const verdicts = runCheckers(run.history, checkContextFor(ref));
  const refDir = join(dir, "reference");
  writeRunArtifacts(refDir, buildRecord(ref, seed, run, verdicts), run.history);
  return { outcome: verdicts.outcome, dir: refDir };
}

/** The counterexample's story from one run of it, and the shipped scenarios that fail the same way. */
export function storyOf(s: Scenario, seed: number): string[] {
  const run = runScenario(s, seed);
  const verdicts = runCheckers(run.history, checkContextFor(s));
  const record = buildRecord(s, seed, run, verdicts);
  const failed = verdicts.results.filter((r) => r.valid === false).map((r) => r.checker);
  return explainCounterexample(record, run.history, likeShipped(failureSignature(s, failed), shippedSignatures(lockIdentity(s))));
}

/** Each shipped scenario of the same lock that is expected to fail, run on its own seed. */
export function shippedSignatures(lock: string): Array<{ name: string; sig: FailureSignature }> {
  return allScenarios()
    .filter((s) => s.expect !== "safe" && lockIdentity(s) === lock)
    .map((s) => {
      const r = runSeed(s, s.seed);
      return {
        name: s.name,
        sig: failureSignature(
          s,
          Object.keys(r.checkers).filter((c) => r.checkers[c] === false),
        ),
      };
    });
}
