import type { Command } from "commander";
import { setExitCode } from "../exit-state.js";
import { mergeSummaries } from "../../harness/sweep/merge.js";
import { formatSweepSummary } from "../../terminal/sweep.js";
import { sweepExitCode } from "../../harness/sweep/exit.js";
import { writeJsonAtomic } from "../../harness/sweep/write.js";
import { checkReplaceable } from "../../harness/safe-write.js";
import { readSummaryFile } from "../../harness/sweep/summary-read.js";
import { terminalJson } from "../../terminal/printable.js";
import { readFileSync } from "node:fs";
import { InputError } from "../../sim/errors.js";
import { EXIT } from "../../harness/exit-codes.js";
import { isAuditJson, mergeAudits, parseAuditFile } from "../../harness/audit/merge.js";
import { writeAuditFiles } from "../../harness/audit/run.js";
import { formatAudit } from "../../terminal/audit.js";

export function registerMerge(program: Command): void {
  program
    .command("merge")
    .description("combine the summary.json files of sweep shards (--shard i/n) into one summary, or the audit.json files of audit shards into one audit")
    .argument("<summaries...>", "summary.json files of disjoint shards of one sweep, or audit.json files of one audit's shards")
    .option("--out <file>", "where to write the merged summary (default: print only)")
    .option("--ok-if-expected", "exit 0 when every run's outcome is the scenario's expected verdict")
    .option("--json", "print the merged summary.json instead of the table")
    .option("--force", "replace an --out file that lockstep did not write")
    .action((files: string[], opts: { out?: string; okIfExpected?: boolean; json?: boolean; force?: boolean }) => {
      const write = { force: opts.force ?? false };
      if (opts.out) checkReplaceable(opts.out, write);
      const audits = files.map(auditJsonOf);
      if (audits.some((a) => a !== undefined)) return mergeAuditShards(files, audits, opts, write);
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

/** The file's JSON when it is shaped like an audit.json; anything else is left to the summary reader's errors. */
function auditJsonOf(file: string): unknown {
  try {
    const raw: unknown = JSON.parse(readFileSync(file, "utf8"));
    return isAuditJson(raw) ? raw : undefined;
  } catch {
    return undefined;
  }
}

function mergeAuditShards(files: string[], audits: unknown[], opts: { out?: string; json?: boolean }, write: { force: boolean }): void {
  const other = files.find((_, i) => audits[i] === undefined);
  if (other !== undefined) throw new InputError(other, "(file)", "expected an audit.json like the other files given (audits and sweep summaries do not merge)");
  const merged = mergeAudits(files.map((file, i) => ({ file, audit: parseAuditFile(audits[i], file) })));
  if (opts.out) writeAuditFiles(merged, opts.out, write);
  process.stdout.write(opts.json ? terminalJson(merged) : formatAudit(merged) + (opts.out ? `wrote ${opts.out} and audit.html beside it\n` : ""));
  setExitCode(merged.yourCode.length > 0 ? EXIT.auditYourCode : EXIT.ok);
}
