import type { Command } from "commander";
import { writeTextAtomic } from "../../harness/sweep/write.js";
import { join } from "node:path";
import { loadScenario, scenarioFiles } from "../../scenarios/index.js";
import { parsePositiveInt, parseSeed } from "../args.js";
import { StepProgress } from "../../harness/sweep/progress.js";
import { EXIT } from "../../harness/exit-codes.js";
import { debateTests } from "../../reports/debate-claims.js";
import { bearingOf, renderDebatePage, tallyText, type DebateEntry } from "../../reports/debate.js";
import { setExitCode } from "../exit-state.js";
import { printableLines } from "../../terminal/printable.js";
import { checkOutputDir } from "../../harness/safe-write.js";
import { playgroundData, writePlayground } from "../../playground/write.js";
import { runClaimScenario, tally, type ClaimRun } from "../../harness/debate.js";

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
      const claimRuns = new Map<string, ClaimRun>();
      const known = scenarioFiles();
      // Each claim's scenario opens in the playground written beside the page.
      const playable = new Set(playgroundData().scenarios.map((p) => p.name));
      const entries: DebateEntry[] = [];
      const lines: string[] = [];
      const claims = debateTests();
      const progress = new StepProgress("debate");
      for (const [k, { claim, test }] of claims.entries()) {
        const name = test.scenario;
        const where = `claim ${k + 1}/${claims.length} (${name})`;
        progress.step(where);
        if (known.has(name) && !claimRuns.has(name)) {
          const scenario = loadScenario(name);
          claimRuns.set(
            name,
            runClaimScenario(scenario, seed ?? scenario.seed, join(out, name), seedsTo, (i) => progress.step(`${where}, seed ${i}/${seedsTo}`)),
          );
        }
        const c = claimRuns.get(name);
        const entry: DebateEntry = {
          claim,
          scenario: name,
          ...(c
            ? { record: c.record, report: `${name}/report.html`, challenged: c.challenged, refused: c.refused, thumb: c.thumb, seeds: tally(test, c.seeds) }
            : {}),
          ...(playable.has(name) ? { playground: `playground/index.html#scenario=${encodeURIComponent(name)}` } : {}),
        };
        entries.push(entry);
        lines.push(claimLine(entry));
      }
      progress.done();
      const unexpected = [...claimRuns.values()].filter((c) => !c.record.expectationMet).length;
      await writePlayground(join(out, "playground"));
      const page = join(out, "debate.html");
      writeTextAtomic(page, renderDebatePage(entries));
      process.stdout.write(
        printableLines(
          `lockstep debate — ${claimRuns.size} scenarios run, each also on seeds 1..${seedsTo}\n  ${"claim".padEnd(26)} ${"scenario".padEnd(34)} ${"outcome".padEnd(20)} the claim is\n` +
            lines.join("\n") +
            `\nwrote ${page} and ${join(out, "playground", "index.html")}\n` +
            (unexpected ? `${unexpected} run(s) did not give their scenario's expected outcome\n` : ""),
        ),
      );
      // Through main's exit state: bin/lockstep.js sets process.exitCode from main's return.
      setExitCode(unexpected ? EXIT.unexpected : EXIT.ok);
    });
}

/** The claim's line in the terminal table: its scenario's outcome, how the claim stands, the seeds' tally. */
function claimLine(entry: DebateEntry): string {
  const r = entry.record;
  const outcome = r ? `${r.verdicts.outcome}${r.expectationMet ? "" : ` (expected ${r.scenario.expect})`}` : "no such scenario";
  return `  ${entry.claim.id.padEnd(26)} ${entry.scenario.padEnd(34)} ${outcome.padEnd(20)} ${bearingOf(entry).replace(/-/g, " ").padEnd(14)} ${entry.seeds ? tallyText(entry.seeds) : ""}`;
}
