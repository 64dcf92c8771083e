import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { historyToJsonl, type HistoryEvent } from "../sim/history.js";
import type { Scenario } from "../scenarios/schema.js";
import type { RunOutput } from "../sim/runner.js";
import type { Verdicts } from "../checkers/run-all.js";
import type { RunRecord } from "../reports/types.js";
import { renderRunReport } from "../reports/run-report.js";

import { lockstepVersion } from "./version.js";
export { lockstepVersion };

/** The command that replays a run (what every failing output prints). */
export function replayCommand(scenario: Scenario, seed: number): string {
  const arg = scenario.file.startsWith("scenarios/") ? scenario.name : scenario.file;
  return `npx lockstep run ${arg} --seed ${seed}`;
}

export function buildRecord(scenario: Scenario, seed: number, run: RunOutput, verdicts: Verdicts): RunRecord {
  return {
    lockstep: { version: lockstepVersion() },
    scenario: {
      name: scenario.name,
      title: scenario.title,
      story: scenario.story,
      file: scenario.file,
      design: scenario.design,
      expect: scenario.expect,
      clients: scenario.clients,
      workload: scenario.workload,
      // With a nemesis, the drawn steps too: the report tells the schedule the run met.
      faults: run.meta.faults,
    },
    seed,
    replay: replayCommand(scenario, seed),
    meta: run.meta,
    verdicts,
    expectationMet: verdicts.outcome === scenario.expect,
  };
}

/**
 * Write history.jsonl, results.json and report.html into `dir`. Everything is
 * rendered in memory first and each file is written to a temporary name and
 * renamed, so a failure never leaves a half-written report.
 */
export function writeRunArtifacts(dir: string, record: RunRecord, history: readonly HistoryEvent[]): void {
  const files: Array<[string, string]> = [
    ["history.jsonl", historyToJsonl(history)],
    ["results.json", JSON.stringify(record, null, 2) + "\n"],
    ["report.html", renderRunReport(record, history)],
  ];
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of files) {
    const tmp = join(dir, `.${name}.tmp`);
    writeFileSync(tmp, text);
    renameSync(tmp, join(dir, name));
  }
}
