import { join } from "node:path";
import type { LockUnderTest } from "../attacks/index.js";
import { loadScenarioFile } from "../scenarios/index.js";
import type { Scenario } from "../scenarios/schema.js";
import { InputError } from "../sim/errors.js";
import { referenceOf } from "../harness/audit/audit.js";
import { onReference } from "../harness/audit/counterexample.js";
import type { CauseFinding, RealConfirmation } from "../harness/audit/diagnose.js";
import type { AuditResult } from "../harness/audit/run.js";
import { planRealRun } from "./nemesis.js";
import { runRealOnce } from "./run.js";
import { recordRealRun, writeRealArtifacts } from "./record.js";
import { checksHold } from "./summary.js";

/**
 * `audit --confirm-real N`: each cause's counterexample replayed N times against real
 * redis-server with the same adapter (`lockstep real`'s machinery: real servers on
 * loopback, the adapter in a Node process of its own, the same checkers), and N times
 * with the reference recipe beside it. Each run's files go under the counterexample's
 * folder (real/run-<i>, real-reference/run-<i>). Not replayable: real mode says so.
 */
export async function confirmCauses(result: AuditResult, lock: LockUnderTest, o: { runs: number; progress?: (line: string) => void }): Promise<void> {
  for (const c of result.causes) {
    if (!c.counterexample) {
      c.real = { runs: 0, unsafe: 0, reference: { runs: 0, unsafe: 0 }, note: "no counterexample was written (run the audit with --out)" };
      continue;
    }
    o.progress?.(`cause ${c.id}: ${o.runs} real run(s) of its counterexample, then ${o.runs} of the reference recipe`);
    c.real = await confirmCause(c, lock, o);
  }
}

/** What real mode makes of one cause's counterexample, here and on the reference recipe. */
export async function confirmCause(c: CauseFinding, lock: LockUnderTest, o: { runs: number; progress?: (line: string) => void }): Promise<RealConfirmation> {
  const file = c.counterexample!.file;
  const here = loadScenarioFile(file);
  const dir = join(file, "..");
  let mine: Tally;
  let theirs: Tally;
  try {
    mine = await realRuns(here, o.runs, join(dir, "real"), o.progress);
    theirs = await realRuns(onReference(here, referenceOf(lock)), o.runs, join(dir, "real-reference"), o.progress);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { runs: 0, unsafe: 0, reference: { runs: 0, unsafe: 0 }, note: `real mode cannot run it: ${e.message}` };
  }
  const notes = [
    ...(mine.notChallenged > 0
      ? [`${mine.notChallenged}/${o.runs} of your lock's runs were not challenged (the fault did not land where the story goes)`]
      : []),
    ...(mine.invalid + theirs.invalid > 0 ? [`${mine.invalid + theirs.invalid} run(s) failed real mode's own checks and count as not reproduced`] : []),
  ];
  return { runs: o.runs, unsafe: mine.unsafe, reference: { runs: o.runs, unsafe: theirs.unsafe }, ...(notes.length > 0 ? { note: notes.join("; ") } : {}) };
}

interface Tally {
  unsafe: number;
  notChallenged: number;
  invalid: number;
}

async function realRuns(s: Scenario, runs: number, dir: string, progress?: (line: string) => void): Promise<Tally> {
  const plan = planRealRun(s, 1, s.seed);
  const t: Tally = { unsafe: 0, notChallenged: 0, invalid: 0 };
  for (let i = 1; i <= runs; i++) {
    const out = await runRealOnce(plan, { run: i, runs, seed: s.seed + i - 1 });
    const record = recordRealRun(plan, out);
    writeRealArtifacts(join(dir, `run-${i}`), record, out.history);
    const outcome = record.verdicts.outcome;
    if (!checksHold(record)) t.invalid++;
    else if (outcome === "unsafe" || outcome === "unsafe-but-fenced") t.unsafe++;
    else if (outcome === "not-challenged") t.notChallenged++;
    progress?.(`  ${dir.endsWith("real-reference") ? "reference recipe" : "your lock"}, real run ${i}/${runs}: ${outcome}`);
  }
  return t;
}
