import type { Command } from "commander";
import { writeTextAtomic } from "../../harness/sweep/write.js";
import { join } from "node:path";
import { loadScenario, scenarioFiles } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { buildRecord, writeRunArtifacts } from "../../harness/artifacts.js";
import { checkContextFor } from "../../harness/check-context.js";
import { parsePositiveInt, parseSeed } from "../args.js";
import { runAvailability } from "../../reports/availability.js";
import { thumbnailSvg } from "../../reports/debate-thumb.js";
import { StepProgress } from "../../harness/sweep/progress.js";
import { EXIT } from "../../harness/exit-codes.js";
import { debateTests } from "../../reports/debate-claims.js";
import { bearingOf, renderDebatePage, tallyText, type DebateEntry } from "../../reports/debate.js";
import type { RunRecord } from "../../reports/types.js";
import { setExitCode } from "../exit-state.js";
import { printableLines } from "../../terminal/printable.js";
import { checkOutputDir } from "../../harness/safe-write.js";
import { playgroundData, writePlayground } from "../../playground/write.js";
import { refusedIn, seedRun, tally, type SeedRun } from "../../harness/debate.js";

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
    .option("--seed <n>", "the one run shown per scenario uses this seed (default: each scenario's own)")
    .option("--seeds <n>", "also run each scenario on seeds 1..n for the claim's rate and interval", "20")
    .action(async (opts: { out?: string; seed?: string; seeds: string }) => {
      const out = opts.out ?? join("runs", "debate");
      checkOutputDir(out);
      const seed = opts.seed !== undefined ? parseSeed(opts.seed, "--seed") : undefined;
      const seedsTo = parsePositiveInt(opts.seeds, "--seeds");
      const extra = new Map<string, { challenged: boolean; refused: boolean; thumb: string }>();
      const sweeps = new Map<string, SeedRun[]>();
      const known = scenarioFiles();
      // Each claim's scenario opens in the playground written beside the page.
      const playable = new Set(playgroundData().scenarios.map((p) => p.name));
      const records = new Map<string, RunRecord>();
      const entries: DebateEntry[] = [];
      const lines: string[] = [];
      let unexpected = 0;
      const claims = debateTests();
      const progress = new StepProgress("debate");
      for (const [k, { claim, test }] of claims.entries()) {
        const name = test.scenario;
        const where = `claim ${k + 1}/${claims.length} (${name})`;
        progress.step(where);
        if (known.has(name) && !records.has(name)) {
          const scenario = loadScenario(name);
          const s = seed ?? scenario.seed;
          const run = runScenario(scenario, s);
          const verdicts = runCheckers(run.history, checkContextFor(scenario));
          const record = buildRecord(scenario, s, run, verdicts);
          writeRunArtifacts(join(out, name), record, run.history);
          records.set(name, record);
          const a = runAvailability(run.history, verdicts.challenge.challenged);
          extra.set(name, { challenged: a.challenged, refused: refusedIn(run.history, a.failedAcquires), thumb: thumbnailSvg(record, run.history) });
          sweeps.set(
            name,
            Array.from({ length: seedsTo }, (_, i) => {
              progress.step(`${where}, seed ${i + 1}/${seedsTo}`);
              return seedRun(scenario, i + 1);
            }),
          );
          if (!record.expectationMet) unexpected++;
        }
        const record = records.get(name);
        const x = extra.get(name);
        const swept = sweeps.get(name);
        const entry: DebateEntry = {
          claim,
          scenario: name,
          ...(record && x ? { record, report: `${name}/report.html`, challenged: x.challenged, refused: x.refused, thumb: x.thumb } : {}),
          ...(swept ? { seeds: tally(test, swept) } : {}),
          ...(playable.has(name) ? { playground: `playground/index.html#scenario=${encodeURIComponent(name)}` } : {}),
        };
        entries.push(entry);
        const outcome = record ? `${record.verdicts.outcome}${record.expectationMet ? "" : ` (expected ${record.scenario.expect})`}` : "no such scenario";
        lines.push(
          `  ${claim.id.padEnd(26)} ${name.padEnd(34)} ${outcome.padEnd(20)} ${bearingOf(entry).replace(/-/g, " ").padEnd(14)} ${entry.seeds ? tallyText(entry.seeds) : ""}`,
        );
      }
      progress.done();
      await writePlayground(join(out, "playground"));
      const page = join(out, "debate.html");
      writeTextAtomic(page, renderDebatePage(entries));
      process.stdout.write(
        printableLines(
          `lockstep debate — ${records.size} scenarios run, each also on seeds 1..${seedsTo}\n  ${"claim".padEnd(26)} ${"scenario".padEnd(34)} ${"outcome".padEnd(20)} the claim is\n` +
            lines.join("\n") +
            `\nwrote ${page} and ${join(out, "playground", "index.html")}\n` +
            (unexpected ? `${unexpected} run(s) did not give their scenario's expected outcome\n` : ""),
        ),
      );
      // Through main's exit state: bin/lockstep.js sets process.exitCode from main's return.
      setExitCode(unexpected ? EXIT.unexpected : EXIT.ok);
    });
}
