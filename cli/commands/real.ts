import type { Command } from "commander";
import { join } from "node:path";
import { loadScenario } from "../../scenarios/index.js";
import { InputError } from "../../sim/errors.js";
import { EXIT } from "../../harness/exit-codes.js";
import { setExitCode } from "../exit-state.js";
import { parsePositiveInt } from "../args.js";
import { printable } from "../../terminal/printable.js";
import type { RealPlan } from "../../real/plan.js";
import { planRealRun } from "../../real/nemesis.js";
import { runRealBatch } from "../../real/batch.js";
import { StepProgress } from "../../harness/sweep/progress.js";
import type { RealRunRecord } from "../../real/record.js";
import { parseTimeScale } from "../../real/time-scale.js";
import { RealRunError } from "../../real/errors.js";
import { checksHold } from "../../real/summary.js";
import { formatRealRun, formatRealRunLine, formatRealSummary } from "../../terminal/real.js";
import { MissingServerBinaryError, ServerExitedError, ServerStartTimeoutError, ServerStopTimeoutError, sweepDeadRuns } from "../../real/servers/index.js";
import { LOCK_CMD_FLAG, LOCK_FLAG, withLockFlag } from "../lock-flag.js";
import { withLockDriver } from "../../scenarios/with-lock-driver.js";
import type { Scenario } from "../../scenarios/schema.js";
import { tmpdir } from "node:os";

interface RealFlags {
  runs: string;
  out?: string;
  timeScale: string;
  okIfExpected?: boolean;
  json?: boolean;
  lock?: string;
  lockCmd?: string;
  clean?: boolean;
}

/** More real runs than this in one command is a sweep's job (each run starts real processes). */
const RUNS_MAX = 1000;

export function registerReal(program: Command): void {
  program
    .command("real")
    .description(
      "run a scenario against real servers and real npm clients on 127.0.0.1; write history.jsonl, results.json and report.html, judged by the same checkers (not replayable)",
    )
    .argument("[scenario]", "a scenario name (see `lockstep list`) or a path to a scenario JSON file")
    .option("--runs <n>", "real runs, one after another (with more than 1: run-<i>/ per run and summary.json)", "1")
    .option("--out <dir>", "directory for the run's files (default: runs/<scenario>-real)")
    .option("--time-scale <x>", "multiply the scenario's times (TTLs, pauses, durations) by x, e.g. 0.2 for quick runs", "1")
    .option("--ok-if-expected", "exit 0 when every run's outcome is the scenario's expected verdict, even if unsafe")
    .option("--json", "print results.json (summary.json with --runs > 1) instead of the summary")
    .option(...LOCK_FLAG)
    .option(...LOCK_CMD_FLAG)
    .option("--clean", "remove the temp dirs and processes that dead real runs (their driver killed) left behind, then exit")
    .action(async (name: string | undefined, opts: RealFlags) => {
      if (opts.clean) return cleanDeadRuns(name);
      if (name === undefined) throw new InputError("<arg>", "<scenario>", "a scenario name or path (or --clean)");
      const runs = parsePositiveInt(opts.runs, "--runs");
      if (runs > RUNS_MAX) throw new InputError("<arg>", "--runs", `expected at most ${RUNS_MAX}, got ${runs}`);
      const factor = parseTimeScale(opts.timeScale);
      const scenario = scenarioOnLock(name, opts);
      // Planned before anything starts (bad input costs nothing); a nemesis is drawn per run, from its seed.
      const plan = planRealRun(scenario, factor, scenario.seed);
      const planOf = (seed: number): RealPlan => (seed === scenario.seed ? plan : planRealRun(scenario, factor, seed));
      const dir = opts.out ?? join("runs", `${scenario.name}-real`);
      await runBatch(plan, planOf, dir, runs, opts);
    });
}

/** The scenario, on the adapter of --lock or the lock driver of --lock-cmd (run where the command was typed). */
function scenarioOnLock(name: string, opts: RealFlags): Scenario {
  if (opts.lock !== undefined && opts.lockCmd !== undefined)
    throw new InputError("<arg>", "--lock/--lock-cmd", "at most one of --lock <adapter> and --lock-cmd <command>");
  const scenario = loadScenario(withLockFlag(name, opts.lock));
  return opts.lockCmd !== undefined ? withLockDriver(scenario, opts.lockCmd, process.cwd()) : scenario;
}

/** `lockstep real --clean`: sweep the OS temp dir of dead runs' leftovers. */
function cleanDeadRuns(name: string | undefined): void {
  if (name !== undefined) throw new InputError("<arg>", "--clean", `takes no scenario (got ${JSON.stringify(name)})`);
  const r = sweepDeadRuns(tmpdir());
  process.stdout.write(
    `lockstep real --clean: removed ${r.removedDirs.length} dead run dir(s)${r.removedDirs.length ? ` (${r.removedDirs.join(", ")})` : ""}, killed ${r.killedPids.length} process(es) they left\n`,
  );
}

/** The batch (real/batch.ts), printed: a line per run (the run's summary for one), stops and the summary. */
async function runBatch(plan: RealPlan, planOf: (seed: number) => RealPlan, dir: string, runs: number, opts: RealFlags): Promise<void> {
  const r = await runRealBatch(plan, planOf, dir, runs, {
    progress: (l) => process.stderr.write(`lockstep real: ${printable(l)}\n`),
    ticker: () => new StepProgress("lockstep real"),
    ran: (record, runDir) => {
      if (!opts.json) process.stdout.write(runs === 1 ? formatRealRun(record, runDir) : formatRealRunLine(record, runDir));
    },
    stopped: (current, total, reason, finished) => {
      // A single run's failure is printed by realFailureCode; a signal, and any stop of a batch, are said here.
      if (total > 1 || reason.startsWith("stopped by"))
        process.stderr.write(`lockstep real: run ${current}/${total} ${reason}${total > 1 ? `; summary.json for the ${finished} finished run(s)` : ""}\n`);
    },
    summarized: (summary, path, records) => {
      if (opts.json) process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
      else process.stdout.write(formatRealSummary(summary, records[0], path));
    },
    failed: realFailureCode,
    reasonOf: (err) => printable(stopReason(err)),
  });
  if (r.exitCode !== undefined) return setExitCode(r.exitCode);
  if (r.stopped) return;
  if (runs === 1 && opts.json) process.stdout.write(JSON.stringify(r.records[0], null, 2) + "\n");
  setExitCode(realExitCode(r.records, opts.okIfExpected ?? false));
}

/** The error's first line, without the "; last log lines:" that introduces lines a one-line reason does not carry. */
export function stopReason(err: unknown): string {
  const first = (err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "";
  return first.replace(/;?\s*last log lines:\s*$/, "");
}

/** Over every run: a run whose real-run checks failed is no evidence (exit 1); then as `lockstep run`/`sweep`. */
export function realExitCode(records: readonly RealRunRecord[], okIfExpected: boolean): number {
  if (records.some((r) => !checksHold(r))) {
    for (const r of records.filter((x) => !checksHold(x))) {
      for (const c of r.real.checks.filter((x) => !x.ok))
        process.stderr.write(printable(`lockstep real: run ${r.real.run} is invalid: ${c.name}: ${c.detail}`) + "\n");
    }
    return EXIT.internal;
  }
  const unchallenged = records.some((r) => r.verdicts.outcome === "not-challenged");
  if (okIfExpected) {
    if (!records.every((r) => r.expectationMet || r.verdicts.outcome === "not-challenged")) return EXIT.unexpected;
    return unchallenged ? EXIT.notChallenged : EXIT.ok;
  }
  if (records.some((r) => r.verdicts.safety === false)) return EXIT.safetyViolation;
  if (records.some((r) => r.verdicts.liveness === false)) return EXIT.livenessViolation;
  if (records.some((r) => r.verdicts.valid === "unknown")) return EXIT.unknown;
  return unchallenged ? EXIT.notChallenged : EXIT.ok;
}

/**
 * A failure of the real environment, said plainly (no stack): a missing server binary is
 * the user's to install (exit 2); a server or client that would not start or died, exit 1
 * with its last log lines.
 */
export function realFailureCode(err: unknown, label = "lockstep real"): number | undefined {
  if (err instanceof MissingServerBinaryError) {
    process.stderr.write(`${label}: ${printable(err.message)}\n`);
    return EXIT.badInput;
  }
  if (err instanceof RealRunError || err instanceof ServerStartTimeoutError || err instanceof ServerExitedError || err instanceof ServerStopTimeoutError) {
    const [first, ...rest] = err.message.split("\n");
    process.stderr.write(`${label}: ${printable(first ?? "")}\n`);
    const tail = [...rest, ...(err instanceof RealRunError && err.logTail ? ["last log lines:", ...err.logTail.split("\n")] : [])];
    for (const l of tail.slice(-20)) process.stderr.write(`  ${printable(l)}\n`);
    return EXIT.internal;
  }
  return undefined;
}
