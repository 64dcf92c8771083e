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
import { printableLines, terminalJson } from "../../terminal/printable.js";
import { StreamedHistoryFile } from "../../harness/streamed-history.js";
import { CANNOT_VARY, checkDeterminism } from "../../harness/determinism.js";
import { parseDurationText, runSoak } from "../../harness/soak.js";
import { StepProgress } from "../../harness/sweep/progress.js";
import { InputError } from "../../sim/errors.js";
import { boundHeapGrowth } from "../heap.js";

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
    .option(
      "--duration <time>",
      "run the workload this long instead (90m, 24h, 2d; a nemesis repeats its window), checked online in bounded memory; writes the history's last events to history-tail.jsonl",
    )
    .option("--full-history", "with --duration: stream the whole history to history.jsonl too (about 100 MB per simulated hour per client)")
    .action((name: string, opts: RunFlags) => {
      boundHeapGrowth(opts.duration !== undefined);
      if (opts.duration !== undefined) {
        runLong(name, opts);
        return;
      }
      const { scenario, seed, dir, write } = runTarget(name, opts);
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
      printRun(record, dir, opts);
    });
}

/** The scenario, seed and directory a run names; the directory is checked before the run, so a bad --out costs nothing. */
function runTarget(name: string, opts: RunFlags, dirSuffix = "") {
  const scenario = loadScenario(withLockFlag(name, opts.lock));
  const seed = opts.seed !== undefined ? parseSeed(opts.seed, "--seed") : scenario.seed;
  const dir = opts.out ?? join("runs", `${scenario.name}-seed${seed}${dirSuffix}`);
  const write = { force: opts.force ?? false };
  checkRunDir(dir, write);
  return { scenario, seed, dir, write };
}

/** The run's summary (or results.json with --json), and its exit code. */
function printRun(record: RunRecord, dir: string, opts: RunFlags, files?: readonly string[]): void {
  if (opts.json) process.stdout.write(terminalJson(record));
  else process.stdout.write(colourVerdicts(printableLines(formatRunSummary(record, dir, files)), colourWanted(process.stdout)));
  if (opts.checkDeterminism && !opts.json) process.stdout.write(`determinism: seed ${record.seed} gave the same history twice; ${CANNOT_VARY}\n`);
  setExitCode(exitCodeFor(record, opts.okIfExpected ?? false));
}

type RunFlags = {
  seed?: string;
  out?: string;
  okIfExpected?: boolean;
  json?: boolean;
  lock?: string;
  force?: boolean;
  checkDeterminism?: boolean;
  trace?: boolean;
  duration?: string;
  fullHistory?: boolean;
};

/** `run --duration`: a soak, checked online; the report shows its verdicts and its last events. */
function runLong(name: string, opts: RunFlags): void {
  if (opts.checkDeterminism)
    throw new InputError("<arg>", "--check-determinism", "not with --duration (a long run is not held to compare); run it twice and compare history.jsonl");
  if (opts.trace) throw new InputError("<arg>", "--trace", "not with --duration (the trace is held in memory)");
  const durationMs = parseDurationText(opts.duration!, "--duration");
  const { scenario, seed, dir, write } = runTarget(name, opts, `-${durationMs}ms`);
  const streamed = opts.fullHistory ? new StreamedHistoryFile(join(dir, "history.jsonl"), write) : undefined;
  const progress = new StepProgress(`lockstep run ${scenario.name} --duration ${opts.duration}`);
  let record: RunRecord;
  try {
    const soak = runSoak(scenario, seed, {
      durationMs,
      ...(streamed ? { historySink: streamed.stream.push } : {}),
      progress: (simMs) => progress.step(`${formatSimTime(simMs)} of ${formatSimTime(durationMs)} simulated (${Math.floor((100 * simMs) / durationMs)}%)`),
    });
    progress.done();
    record = { ...buildRecord({ ...scenario, durationMs }, seed, soak.run, soak.verdicts), replay: soak.replay };
    writeRunArtifacts(dir, record, soak.tail, write, streamed?.finish(), undefined, true);
  } finally {
    streamed?.discard();
  }
  const files = [...(streamed ? ["history.jsonl"] : []), "history-tail.jsonl", "results.json", "report.html"];
  printRun(record, dir, opts, files);
}

function formatSimTime(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
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

export function formatRunSummary(r: RunRecord, dir: string, files: readonly string[] = ["history.jsonl", "results.json", "report.html"]): string {
  const lines: string[] = [];
  lines.push(`lockstep run ${r.scenario.name} — design ${r.scenario.design}, seed ${r.seed}`);
  for (const c of r.verdicts.results) lines.push(`  ${verdictMark(c)} ${c.checker.padEnd(18)} ${c.summary}`);
  lines.push(challengeLine(r));
  lines.push(`outcome: ${r.verdicts.outcome} (expected: ${r.scenario.expect}${r.expectationMet ? ", as expected" : ", NOT as expected"})`);
  lines.push(`seed: ${r.seed}`);
  lines.push(`replay: ${r.replay}`);
  lines.push(`wrote ${files.map((f) => join(dir, f)).join(", ")}`);
  return lines.join("\n") + "\n";
}
