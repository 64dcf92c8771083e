import { join } from "node:path";
import { historyToJsonl, type HistoryEvent } from "../sim/history.js";
import type { Scenario } from "../scenarios/schema.js";
import type { RunOutput } from "./runner.js";
import type { Verdicts } from "../checkers/run-all.js";
import type { RunRecord } from "../reports/types.js";
import { traceToJsonl } from "../reports/command-trace.js";
import type { TraceRecord } from "../sim/simulation.js";
import { renderRunReport } from "../reports/run-report.js";
import { checkOutputDir, checkReplaceable, writeFilesSafe, type SafeWriteOptions } from "./safe-write.js";

import { lockstepVersion } from "./version.js";
import { replayCommand } from "./replay-command.js";
export { lockstepVersion };

/** Re-exported for callers that already load this module; others import ./replay-command.js. */
export { replayCommand };

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
 * rendered in memory first and written as one step (harness/safe-write.ts): each to a
 * temporary name, renamed only once all three are written, never over a file lockstep
 * did not write; a failure leaves no temporary file and names the path.
 */
export const RUN_FILES = ["history.jsonl", "results.json", "report.html", "trace.jsonl", "history-tail.jsonl"] as const;

/** Refuse, before a run, a directory its files could not be written into. */
export function checkRunDir(dir: string, o: SafeWriteOptions = {}): void {
  checkOutputDir(dir, o.flag);
  for (const name of RUN_FILES) checkReplaceable(join(dir, name), o);
}

/** `streamedHistoryTemp`: history.jsonl was written as the run went (harness/streamed-history.ts), to this temp. */
export function writeRunArtifacts(
  dir: string,
  record: RunRecord,
  history: readonly HistoryEvent[],
  o: SafeWriteOptions = {},
  streamedHistoryTemp?: string,
  trace?: readonly TraceRecord[],
  /** `history` is the end of a long run's (harness/soak.ts): written as history-tail.jsonl; history.jsonl only if streamed. */
  tailOnly = false,
): void {
  checkOutputDir(dir, o.flag);
  const historyPath = join(dir, "history.jsonl");
  const historyFile =
    streamedHistoryTemp !== undefined
      ? { path: historyPath, writtenTemp: streamedHistoryTemp }
      : tailOnly
        ? undefined
        : { path: historyPath, text: historyToJsonl(history) };
  writeFilesSafe(
    [
      ...(historyFile ? [historyFile] : []),
      ...(tailOnly ? [{ path: join(dir, "history-tail.jsonl"), text: historyToJsonl(history) }] : []),
      { path: join(dir, "results.json"), text: JSON.stringify(record, null, 2) + "\n" },
      { path: join(dir, "report.html"), text: renderRunReport(record, history, trace) },
      ...(trace !== undefined ? [{ path: join(dir, "trace.jsonl"), text: traceToJsonl(trace) }] : []),
    ],
    o,
  );
}
