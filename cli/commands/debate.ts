import type { Command } from "commander";
import { writeTextAtomic } from "../sweep/write.js";
import { join } from "node:path";
import { loadScenario, scenarioFiles } from "../../scenarios/index.js";
import { runScenario } from "../../sim/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { buildRecord, writeRunArtifacts } from "../artifacts.js";
import { checkContextFor } from "../check-context.js";
import { parseSeed } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { debateTests } from "../../reports/debate-claims.js";
import { bearingOf, renderDebatePage, type DebateEntry } from "../../reports/debate.js";
import type { RunRecord } from "../../reports/types.js";
import { setExitCode } from "../exit-state.js";
import { printableLines } from "../printable.js";
import { checkOutputDir } from "../safe-write.js";

/**
 * `lockstep debate`: run the scenario behind each claim of the Redlock debate
 * (reports/debate-claims.ts), write each run's artifacts under DIR/<scenario>/ and
 * DIR/debate.html linking to them. Exits 0 when every run's outcome is its scenario's
 * expected one, 6 (unexpected) otherwise.
 */
export function registerDebate(program: Command): void {
  program
    .command("debate")
    .description("run the scenarios behind the Redlock debate's claims and write debate.html with their reports")
    .option("--out <dir>", "directory for debate.html and the runs (default: runs/debate)")
    .option("--seed <n>", "run every scenario with this seed (default: each scenario's own)")
    .action((opts: { out?: string; seed?: string }) => {
      const out = opts.out ?? join("runs", "debate");
      checkOutputDir(out);
      const seed = opts.seed !== undefined ? parseSeed(opts.seed, "--seed") : undefined;
      const known = scenarioFiles();
      const records = new Map<string, RunRecord>();
      const entries: DebateEntry[] = [];
      const lines: string[] = [];
      let unexpected = 0;
      for (const { claim, test } of debateTests()) {
        const name = test.scenario;
        if (known.has(name) && !records.has(name)) {
          const scenario = loadScenario(name);
          const s = seed ?? scenario.seed;
          const run = runScenario(scenario, s);
          const record = buildRecord(scenario, s, run, runCheckers(run.history, checkContextFor(scenario)));
          writeRunArtifacts(join(out, name), record, run.history);
          records.set(name, record);
          if (!record.expectationMet) unexpected++;
        }
        const record = records.get(name);
        const entry: DebateEntry = { claim, scenario: name, ...(record ? { record, report: `${name}/report.html` } : {}) };
        entries.push(entry);
        const outcome = record ? `${record.verdicts.outcome}${record.expectationMet ? "" : ` (expected ${record.scenario.expect})`}` : "no such scenario";
        lines.push(`  ${claim.id.padEnd(18)} ${name.padEnd(34)} ${outcome.padEnd(20)} ${bearingOf(entry).replace(/-/g, " ")}`);
      }
      const page = join(out, "debate.html");
      writeTextAtomic(page, renderDebatePage(entries));
      process.stdout.write(printableLines(
        `lockstep debate — ${records.size} scenarios run\n  ${"claim".padEnd(18)} ${"scenario".padEnd(34)} ${"outcome".padEnd(20)} the claim is\n` +
          lines.join("\n") +
          `\nwrote ${page}\n` +
          (unexpected ? `${unexpected} run(s) did not give their scenario's expected outcome\n` : ""),
      ));
      // Through main's exit state: bin/lockstep.js sets process.exitCode from main's return.
      setExitCode(unexpected ? EXIT.unexpected : EXIT.ok);
    });
}
