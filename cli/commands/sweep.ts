import type { Command } from "commander";
import { setExitCode } from "../exit-state.js";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import { parsePositiveInt, parseSeedRange, parseWorkers } from "../args.js";
import { defaultWorkers, startThreads, threadsFor } from "../../harness/sweep/threads.js";
import { describeThreadDied, SweepThreadDied } from "../../harness/sweep/thread-died.js";
import { parseShard } from "../../harness/sweep/range.js";
import { formatSweepSummary } from "../../terminal/sweep.js";
import { sweepExitCode } from "../../harness/sweep/exit.js";
import { writeJsonAtomic } from "../../harness/sweep/write.js";
import { LOCK_FLAG, withLockFlag } from "../lock-flag.js";
import { checkOutputDir, checkReplaceable, removeLiveTemps } from "../../harness/safe-write.js";
import { removeProgress } from "../../harness/sweep/checkpoint.js";
import { EXIT } from "../../harness/exit-codes.js";
import { printable, printableLines, terminalJson } from "../../terminal/printable.js";

interface SweepFlags {
  lock?: string;
  seeds: string;
  workers?: string;
  shard?: string;
  out?: string;
  failingMax: string;
  reports: string;
  okIfExpected?: boolean;
  json?: boolean;
  resume?: boolean;
  force?: boolean;
  checkDeterminism?: boolean;
}

/** A word for a shell command line, quoted only when it needs to be. */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Ctrl-C (or SIGTERM) during a sweep aborts `controller`: the sweep stops handing out
 * seeds, stops its threads, and returns what finished. A second Ctrl-C exits at once,
 * removing any temporary file still open.
 */
function interruptOnSignals(controller: AbortController): () => void {
  const onSignal = (): void => {
    if (controller.signal.aborted) {
      removeLiveTemps();
      process.exit(EXIT.interrupted);
    }
    process.stderr.write("\nlockstep: interrupted; stopping the sweep and writing a partial summary (Ctrl-C again to quit at once)\n");
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
}

export function registerSweep(program: Command): void {
  program
    .command("sweep")
    .description(
      "run one scenario over a range of seeds in parallel; print violation rates with 95% intervals; write summary.json and the failing seeds' reports",
    )
    .argument("<scenario>", "a scenario name (see `lockstep list`) or a path to a scenario JSON file")
    .requiredOption("--seeds <A..B>", "the seeds to run, inclusive (e.g. 1..1000)")
    .option("--workers <n>", `worker threads (default: ${defaultWorkers()}, this machine's cores); the result does not depend on it`)
    .option("--shard <i/n>", "run only the i-th of n slices of the seed range (combine with `lockstep merge`)")
    .option("--out <dir>", "directory for summary.json, progress.jsonl and failing/seed-<N>/ (default: runs/sweep-<scenario>-<A>-<B>[-shard-i-of-n])")
    .option("--failing-max <k>", "failing seeds listed in the summary", "20")
    .option("--reports <k>", "failing seeds whose run reports are written", "10")
    .option("--ok-if-expected", "exit 0 when every run's outcome is the scenario's expected verdict")
    .option("--json", "print summary.json instead of the table")
    .option("--resume", "continue an interrupted sweep from --out's progress.jsonl (same scenario, --seeds and --shard)")
    .option("--force", "replace a summary.json in --out that lockstep did not write")
    .option(...LOCK_FLAG)
    .option("--check-determinism", "run every seed twice and stop (exit 7) naming the first event where a seed's histories differ")
    .action(async (name: string, opts: SweepFlags) => {
      const range = parseSeedRange(opts.seeds, "--seeds");
      const shard = opts.shard !== undefined ? parseShard(opts.shard, "--shard") : undefined;
      const workers = opts.workers !== undefined ? parseWorkers(opts.workers, "--workers") : defaultWorkers();
      const limit = parsePositiveInt(opts.failingMax, "--failing-max");
      const reportsMax = /^\d+$/.test(opts.reports) ? Number(opts.reports) : parsePositiveInt(opts.reports, "--reports");
      // The threads start loading the simulator now, while this thread loads it too (the
      // sweep and scenario modules below are imported only after): their start-up overlaps
      // this thread's instead of following it. Every path from here stops them.
      const threads = startThreads(threadsFor(workers));
      try {
        await sweepWith(name, opts, { range, shard, workers, limit, reportsMax }, threads);
      } catch (e) {
        if (!(e instanceof SweepThreadDied)) throw e;
        // A lockstep failure (exit 1), but one with the seeds to look at: no stack trace.
        process.stderr.write(printableLines(describeThreadDied(e)));
        setExitCode(EXIT.internal);
      } finally {
        await Promise.all(threads.map((w) => w.terminate()));
      }
    });
}

interface Parsed {
  range: ReturnType<typeof parseSeedRange>;
  shard: ReturnType<typeof parseShard> | undefined;
  workers: number;
  limit: number;
  reportsMax: number;
}

/** The command that resumes an interrupted sweep where it stopped. */
function resumeCommand(name: string, opts: SweepFlags, p: Parsed, dir: string): string {
  const { range, shard, limit, reportsMax } = p;
  return [
    "npx lockstep sweep",
    shellWord(name),
    `--seeds ${range.from}..${range.to}`,
    ...(shard ? [`--shard ${shard.index}/${shard.count}`] : []),
    ...(opts.lock ? [`--lock ${shellWord(opts.lock)}`] : []),
    ...(opts.checkDeterminism ? ["--check-determinism"] : []),
    `--failing-max ${limit}`,
    `--reports ${reportsMax}`,
    `--out ${shellWord(dir)}`,
    "--resume",
  ].join(" ");
}

async function sweepWith(name: string, opts: SweepFlags, p: Parsed, threads: Worker[]): Promise<void> {
  const { range, shard, workers, limit, reportsMax } = p;
  const [{ loadScenario }, { runSweep }, { CANNOT_VARY }] = await Promise.all([
    import("../../scenarios/index.js"),
    import("../../harness/sweep/sweep.js"),
    import("../../harness/determinism.js"),
  ]);
  const loaded = loadScenario(withLockFlag(name, opts.lock));
  const scenario = opts.checkDeterminism ? { ...loaded, checkDeterminism: true } : loaded;
  const suffix = shard && shard.count > 1 ? `-shard-${shard.index}-of-${shard.count}` : "";
  const dir = opts.out ?? join("runs", `sweep-${scenario.name}-${range.from}-${range.to}${suffix}`);
  const summaryPath = join(dir, "summary.json");
  const write = { force: opts.force ?? false };
  // Before any seed runs: an --out that cannot take the results fails now.
  checkOutputDir(dir);
  checkReplaceable(summaryPath, write);
  checkOutputDir(join(dir, "failing"), "--out");

  const controller = new AbortController();
  const release = interruptOnSignals(controller);
  let result;
  try {
    result = await runSweep(scenario, {
      range,
      shard,
      workers,
      limit,
      outDir: dir,
      reportsMax,
      checkpoint: { resume: opts.resume ?? false },
      signal: controller.signal,
      threads,
    });
  } finally {
    release();
  }
  const { summary } = result;
  if (result.interrupted) {
    const resume = resumeCommand(name, opts, p, dir);
    const partial = { ...summary, partial: true as const, resume };
    writeJsonAtomic(summaryPath, partial, write);
    process.stdout.write(opts.json ? terminalJson(partial) : formatSweepSummary(summary, [summaryPath]));
    process.stderr.write(
      printable(
        `lockstep: interrupted after ${summary.runs} of the shard's seeds; ${summaryPath} is partial (merge refuses it), progress is kept in ${join(dir, "progress.jsonl")}`,
      ) + `\nresume: ${printable(resume)}\n`,
    );
    setExitCode(EXIT.interrupted);
    return;
  }
  writeJsonAtomic(summaryPath, summary, write);
  removeProgress(dir);
  const wrote = [summaryPath];
  if (summary.execution.reports.length > 0) wrote.push(`${summary.execution.reports.length} failing-seed report(s) under ${join(dir, "failing")}/`);
  if (result.resumed > 0) wrote.push(`(${result.resumed} seed(s) read back from the interrupted run's progress)`);
  if (opts.json) process.stdout.write(terminalJson(summary));
  else process.stdout.write(formatSweepSummary(summary, wrote));
  if (opts.checkDeterminism && !opts.json) process.stdout.write(`determinism: every seed gave the same history twice; ${CANNOT_VARY}\n`);
  setExitCode(sweepExitCode(summary, opts.okIfExpected ?? false));
}
