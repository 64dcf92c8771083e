import type { Command } from "commander";
import { setExitCode } from "../exit-state.js";
import { join } from "node:path";
import { loadScenario } from "../../scenarios/index.js";
import { parsePositiveInt, parseSeedRange, parseWorkers } from "../args.js";
import { defaultWorkers } from "../sweep/pool.js";
import { parseShard } from "../sweep/range.js";
import { runSweep } from "../sweep/sweep.js";
import { formatSweepSummary } from "../sweep/format.js";
import { sweepExitCode } from "../sweep/exit.js";
import { writeJsonAtomic } from "../sweep/write.js";
import { LOCK_FLAG, withLockFlag } from "../lock-flag.js";

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
}

export function registerSweep(program: Command): void {
  program
    .command("sweep")
    .description("run one scenario over a range of seeds in parallel; print violation rates with 95% intervals; write summary.json and the failing seeds' reports")
    .argument("<scenario>", "a scenario name (see `lockstep list`) or a path to a scenario JSON file")
    .requiredOption("--seeds <A..B>", "the seeds to run, inclusive (e.g. 1..1000)")
    .option("--workers <n>", "worker threads (default: the machine's cores); the result does not depend on it")
    .option("--shard <i/n>", "run only the i-th of n slices of the seed range (combine with `lockstep merge`)")
    .option("--out <dir>", "directory for summary.json and failing/seed-<N>/ (default: runs/sweep-<scenario>-<A>-<B>[-shard-i-of-n])")
    .option("--failing-max <k>", "failing seeds listed in the summary", "20")
    .option("--reports <k>", "failing seeds whose run reports are written", "10")
    .option("--ok-if-expected", "exit 0 when every run's outcome is the scenario's expected verdict")
    .option("--json", "print summary.json instead of the table")
    .option(...LOCK_FLAG)
    .action(async (name: string, opts: SweepFlags) => {
      const range = parseSeedRange(opts.seeds, "--seeds");
      const shard = opts.shard !== undefined ? parseShard(opts.shard, "--shard") : undefined;
      const workers = opts.workers !== undefined ? parseWorkers(opts.workers, "--workers") : defaultWorkers();
      const limit = parsePositiveInt(opts.failingMax, "--failing-max");
      const reportsMax = /^\d+$/.test(opts.reports) ? Number(opts.reports) : parsePositiveInt(opts.reports, "--reports");
      const scenario = loadScenario(withLockFlag(name, opts.lock));
      const suffix = shard && shard.count > 1 ? `-shard-${shard.index}-of-${shard.count}` : "";
      const dir = opts.out ?? join("runs", `sweep-${scenario.name}-${range.from}-${range.to}${suffix}`);
      const { summary } = await runSweep(scenario, { range, shard, workers, limit, outDir: dir, reportsMax });
      const summaryPath = join(dir, "summary.json");
      writeJsonAtomic(summaryPath, summary);
      const wrote = [summaryPath];
      if (summary.execution.reports.length > 0) wrote.push(`${summary.execution.reports.length} failing-seed report(s) under ${join(dir, "failing")}/`);
      if (opts.json) process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
      else process.stdout.write(formatSweepSummary(summary, wrote));
      setExitCode(sweepExitCode(summary, opts.okIfExpected ?? false));
    });
}
