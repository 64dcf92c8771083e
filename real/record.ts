// results.json of a real run: the simulator's RunRecord (harness/artifacts.ts buildRecord, so
// every field a report reads is there) with the replay command replaced by the real-run
// note, and a `real` block: versions, time scale, fault log, run checks.
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { historyToJsonl, type HistoryEvent } from "../sim/history.js";
import { runCheckers } from "../checkers/run-all.js";
import { buildRecord } from "../harness/artifacts.js";
import { checkContextFor } from "../harness/check-context.js";
import type { RunRecord } from "../reports/types.js";
import { renderRunReport } from "../reports/run-report.js";
import type { RealPlan } from "./plan.js";
import { REAL_NOTE, type RealRunInfo, type RealRunOutput } from "./run.js";
import { markRealReport } from "./report.js";

export interface RealRunRecord extends RunRecord {
  real: RealRunInfo;
}

/** The command that runs the scenario again for real (a new history: nothing replays). */
export function rerunCommand(plan: RealPlan): string {
  const arg = plan.original.file.startsWith("scenarios/") ? plan.original.name : plan.original.file;
  return `npx lockstep real ${arg}${plan.timeScale.factor !== 1 ? ` --time-scale ${plan.timeScale.factor}` : ""}`;
}

/** Judge a real run with the same checkers as a simulated one and build its record. */
export function recordRealRun(plan: RealPlan, out: RealRunOutput): RealRunRecord {
  const verdicts = runCheckers(out.history, checkContextFor(plan.scenario));
  const base = buildRecord(plan.scenario, out.meta.seed, { history: out.history, meta: out.meta }, verdicts);
  const rerun = rerunCommand(plan);
  return { ...base, replay: `${REAL_NOTE}; run it again (a new history): ${rerun}`, real: { ...out.real, rerun } };
}

/** history.jsonl, results.json and the marked report.html in `dir`, each written whole then renamed. */
export function writeRealArtifacts(dir: string, record: RealRunRecord, history: readonly HistoryEvent[]): void {
  const files: Array<[string, string]> = [
    ["history.jsonl", historyToJsonl(history)],
    ["results.json", JSON.stringify(record, null, 2) + "\n"],
    ["report.html", markRealReport(renderRunReport(record, history), record)],
  ];
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of files) {
    const tmp = join(dir, `.${name}.tmp`);
    writeFileSync(tmp, text);
    renameSync(tmp, join(dir, name));
  }
}
