import type { Command } from "commander";
import { setExitCode } from "../exit-state.js";
import { mergeSummaries } from "../../harness/sweep/merge.js";
import { formatSweepSummary } from "../../harness/sweep/format.js";
import { sweepExitCode } from "../../harness/sweep/exit.js";
import { writeJsonAtomic } from "../../harness/sweep/write.js";
import { checkReplaceable } from "../../harness/safe-write.js";
import { readSummaryFile } from "../../harness/sweep/summary-read.js";
import { terminalJson } from "../../harness/printable.js";

export function registerMerge(program: Command): void {
  program
    .command("merge")
    .description("combine the summary.json files of sweep shards (--shard i/n) into one summary")
    .argument("<summaries...>", "summary.json files of disjoint shards of one sweep")
    .option("--out <file>", "where to write the merged summary (default: print only)")
    .option("--ok-if-expected", "exit 0 when every run's outcome is the scenario's expected verdict")
    .option("--json", "print the merged summary.json instead of the table")
    .option("--force", "replace an --out file that lockstep did not write")
    .action((files: string[], opts: { out?: string; okIfExpected?: boolean; json?: boolean; force?: boolean }) => {
      const write = { force: opts.force ?? false };
      if (opts.out) checkReplaceable(opts.out, write);
      const merged = mergeSummaries(files.map((file) => ({ file, summary: readSummaryFile(file) })));
      const wrote: string[] = [];
      if (opts.out) {
        writeJsonAtomic(opts.out, merged, write);
        wrote.push(opts.out);
      }
      if (opts.json) process.stdout.write(terminalJson(merged));
      else {
        const missing = merged.complete ? "" : `warning: the shards cover ${merged.runs} of the range's seeds; a shard is missing\n`;
        process.stdout.write(formatSweepSummary(merged, wrote) + missing);
      }
      setExitCode(sweepExitCode(merged, opts.okIfExpected ?? false));
    });
}
