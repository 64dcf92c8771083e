import type { Command } from "commander";
import { verdictMark } from "../verdict-mark.js";
import { colourVerdicts, colourWanted } from "../colour.js";
import { join } from "node:path";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import type { TraceRecord } from "../../sim/simulation.js";
import { runCheckers } from "../../checkers/run-all.js";
import { buildRecord, checkRunDir, writeRunArtifacts } from "../../harness/artifacts.js";
import { EXIT } from "../../harness/exit-codes.js";
import { setExitCode } from "../exit-state.js";
import { parseSeed } from "../args.js";
import { checkContextFor } from "../../harness/check-context.js";
import type { RunRecord } from "../../reports/types.js";
import { LOCK_FLAG, withLockFlag } from "../lock-flag.js";
import { printableLines, terminalJson } from "../../harness/printable.js";
import { StreamedHistoryFile } from "../../harness/streamed-history.js";
import { checkDeterminism } from "../../harness/determinism.js";

export function registerRun(program: Command): void {
  program
    .command("run")
    .description("run one scenario with one seed; write history.jsonl, results.json and report.html")
    .argument("<scenario>", "a scenario name (see `lockstep list`) or a path to a scenario JSON file")
    .option("--seed <n>", "the run's seed (default: the scenario's own)")
    .option("--out <dir>", "directory for this run's files (default: runs/<scenario>-seed<N>)")
    .option("--ok-if-expected", "exit 0 when the outcome is the scenario's expected verdict, even if unsafe")
    .option("--json", "print results.json instead of the summary")
    .option("--force", "replace files in --out that lockstep did not write")
    .option(...LOCK_FLAG)
    .option("--check-determinism", "run the seed twice and stop (exit 7) naming the first event where the histories differ")
    .option("--trace", "also record every command each Redis node executes: trace.jsonl, and a folded table per node in report.html")
    .action(
      (
        name: string,
        opts: {
          seed?: string;
          out?: string;
          okIfExpected?: boolean;
          json?: boolean;
          lock?: string;
          force?: boolean;
          checkDeterminism?: boolean;
          trace?: boolean;
        },
      ) => {
        const scenario = loadScenario(withLockFlag(name, opts.lock));
        const seed = opts.seed !== undefined ? parseSeed(opts.seed, "--seed") : scenario.seed;
        const dir = opts.out ?? join("runs", `${scenario.name}-seed${seed}`);
        const write = { force: opts.force ?? false };
        // Before the run: a bad --out should cost nothing.
        checkRunDir(dir, write);
        // history.jsonl is written as the run goes (bounded buffer); the checkers and the
        // report still read the retained history.
        const streamed = new StreamedHistoryFile(join(dir, "history.jsonl"), write);
        let record: RunRecord;
        try {
          const trace: TraceRecord[] | undefined = opts.trace ? [] : undefined;
          const run = runScenario(scenario, seed, {}, { historySink: streamed.stream.push, ...(trace ? { traceSink: (r) => trace.push(r) } : {}) });
          const historyTemp = streamed.finish();
          if (opts.checkDeterminism) checkDeterminism(scenario, seed, run.history);
          const verdicts = runCheckers(run.history, checkContextFor(scenario));
          record = buildRecord(scenario, seed, run, verdicts);
          writeRunArtifacts(dir, record, run.history, write, historyTemp, trace);
        } finally {
          streamed.discard();
        }
        if (opts.json) process.stdout.write(terminalJson(record));
        else process.stdout.write(colourVerdicts(printableLines(formatRunSummary(record, dir)), colourWanted(process.stdout)));
        setExitCode(exitCodeFor(record, opts.okIfExpected ?? false));
      },
    );
}

/**
 * A run that was not challenged exits 8 even with --ok-if-expected: no scenario expects a
 * vacuous pass, and CI must tell one from a pass (0) and from another verdict (6).
 */
export function exitCodeFor(record: RunRecord, okIfExpected: boolean): number {
  const v = record.verdicts;
  if (v.outcome === "not-challenged") return EXIT.notChallenged;
  if (okIfExpected) return record.expectationMet ? EXIT.ok : EXIT.unexpected;
  if (v.safety === false) return EXIT.safetyViolation;
  if (v.liveness === false) return EXIT.livenessViolation;
  if (v.valid === "unknown") return EXIT.unknown;
  return EXIT.ok;
}

/** The challenge line of a run's summary: what tested the lock, or why nothing did. */
export function challengeLine(r: RunRecord): string {
  const c = r.verdicts.challenge;
  return c.challenged ? `challenged: ${c.why}` : `NOT CHALLENGED: ${c.why}`;
}

export function formatRunSummary(r: RunRecord, dir: string): string {
  const lines: string[] = [];
  lines.push(`lockstep run ${r.scenario.name} — design ${r.scenario.design}, seed ${r.seed}`);
  for (const c of r.verdicts.results) lines.push(`  ${verdictMark(c)} ${c.checker.padEnd(18)} ${c.summary}`);
  lines.push(challengeLine(r));
  lines.push(`outcome: ${r.verdicts.outcome} (expected: ${r.scenario.expect}${r.expectationMet ? ", as expected" : ", NOT as expected"})`);
  lines.push(`seed: ${r.seed}`);
  lines.push(`replay: ${r.replay}`);
  lines.push(`wrote ${join(dir, "history.jsonl")}, ${join(dir, "results.json")}, ${join(dir, "report.html")}`);
  return lines.join("\n") + "\n";
}
