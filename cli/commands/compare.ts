import type { Command } from "commander";
import { join } from "node:path";
import { setExitCode } from "../exit-state.js";
import { EXIT } from "../../harness/exit-codes.js";
import { parsePositiveInt, parseSeedRange, parseWorkers } from "../args.js";
import { didYouMean } from "../../sim/suggest.js";
import { allScenarios, loadScenario } from "../../scenarios/index.js";
import { DESIGNS, designByName } from "../../designs/index.js";
import { BUILTIN_ADAPTERS, adapterPath } from "../../designs/library/adapter.js";
import { LIBRARY_PREFIX } from "../../harness/sweep/compare.js";
import { InputError } from "../../sim/errors.js";
import { defaultWorkers } from "../../harness/sweep/pool.js";
import { runCompare, type CompareResult } from "../../harness/sweep/compare.js";
import { writeJsonAtomic, writeTextAtomic } from "../../harness/sweep/write.js";
import { cellAt } from "../../reports/compare-cells.js";
import { renderComparePage } from "../../reports/compare-page.js";
import { formatCompareTable } from "../../reports/compare-table.js";
import { printableLines } from "../../terminal/printable.js";
import { checkOutputDir } from "../../harness/safe-write.js";
import { ATTACKS, attackByName, type Attack } from "../../attacks/index.js";

interface CompareFlags {
  designs?: string;
  scenarios?: string;
  seeds: string;
  workers?: string;
  out: string;
  failingMax: string;
  failOnViolation?: boolean;
  attacks?: string | boolean;
  lock?: string;
}

const list = (text: string): string[] =>
  text
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x.length > 0);

/** "N" means seeds 1..N (N runs per cell); "A..B" a range. */
function parseCompareSeeds(text: string): { from: number; to: number } {
  if (/^\d+$/.test(text)) return { from: 1, to: parsePositiveInt(text, "--seeds") };
  return parseSeedRange(text, "--seeds");
}

export function registerCompare(program: Command): void {
  program
    .command("compare")
    .description("sweep every scenario on every design; write compare.html, matrix.json and one failing seed's report per cell")
    .option("--designs <list>", "comma-separated designs (default: all)")
    .option("--scenarios <list>", "comma-separated scenario names or files (default: every scenario of the chosen designs)")
    .option("--lock <adapter>", "add a column for a lock library: a built-in adapter or a path to your own adapter module (one Redis node)")
    .option("--attacks [list]", "rows are attacks compiled for each design (docs/attacks.md): the list given, or the whole catalogue")
    .requiredOption("--seeds <N|A..B>", "seeds per cell: N for 1..N, or a range")
    .option("--workers <n>", "worker threads (default: the machine's cores)")
    .option("--out <dir>", "output directory", join("runs", "compare"))
    .option("--failing-max <k>", "failing seeds listed per cell summary", "20")
    .option(
      "--fail-on-violation",
      `exit ${EXIT.safetyViolation} if any cell had a safety violation (for CI; by default compare exits 0 once its pages are written)`,
    )
    .action(async (opts: CompareFlags) => {
      checkOutputDir(opts.out);
      const designs = opts.designs ? list(opts.designs) : opts.lock !== undefined ? [] : DESIGNS.map((d) => d.name);
      if (opts.lock !== undefined) {
        // Checked here, so a missing file is an error naming --lock, not a skipped cell.
        if (!BUILTIN_ADAPTERS[opts.lock]) adapterPath(opts.lock, "<arg>", "--lock");
        designs.push(`${LIBRARY_PREFIX}${opts.lock}`);
      }
      for (const d of designs) {
        if (d === `${LIBRARY_PREFIX}${opts.lock}`) continue;
        if (d.startsWith(LIBRARY_PREFIX)) {
          const adapter = d.slice(LIBRARY_PREFIX.length);
          if (!BUILTIN_ADAPTERS[adapter])
            throw new InputError("<arg>", "--designs", `unknown library "${adapter}"; expected library:<one of ${Object.keys(BUILTIN_ADAPTERS).join(", ")}>`);
          continue;
        }
        if (!designByName(d))
          throw new InputError(
            "<arg>",
            "--designs",
            `unknown design "${d}"; ${didYouMean(
              d,
              DESIGNS.map((x) => x.name),
            )}expected some of: ${DESIGNS.map((x) => x.name).join(", ")}`,
          );
      }
      if (designs.length === 0) throw new InputError("<arg>", "--designs", "expected at least one design");
      if (opts.attacks !== undefined && opts.scenarios !== undefined) throw new InputError("<arg>", "--attacks", "either --attacks or --scenarios, not both");
      const attacks = opts.attacks === undefined ? undefined : attacksOf(opts.attacks);
      const scenarios = attacks ? [] : opts.scenarios ? list(opts.scenarios).map(loadScenario) : allScenarios().filter((s) => designs.includes(s.design));
      if (!attacks && scenarios.length === 0) throw new InputError("<arg>", "--scenarios", "expected at least one scenario");
      const range = parseCompareSeeds(opts.seeds);
      const workers = opts.workers !== undefined ? parseWorkers(opts.workers, "--workers") : defaultWorkers();
      const limit = parsePositiveInt(opts.failingMax, "--failing-max");
      const result = await runCompare({ designs, scenarios, ...(attacks ? { attacks } : {}), range, workers, outDir: opts.out, limit });
      process.stdout.write(printableLines(writeCompareOutputs(opts.out, result)));
      setExitCode(compareExitCode(result, opts.failOnViolation === true));
    });
}

/** `--attacks` alone is the whole catalogue; a list names attacks from it. */
function attacksOf(given: string | boolean): readonly Attack[] {
  if (given === true) return ATTACKS;
  const names = list(String(given));
  if (names.length === 0) throw new InputError("<arg>", "--attacks", `attack names from: ${ATTACKS.map((a) => a.name).join(", ")}`);
  return names.map((n) => {
    const a = attackByName(n);
    if (!a)
      throw new InputError(
        "<arg>",
        "--attacks",
        `unknown attack "${n}"; ${didYouMean(
          n,
          ATTACKS.map((x) => x.name),
        )}expected some of: ${ATTACKS.map((x) => x.name).join(", ")}`,
      );
    return a;
  });
}

/** 0 once the pages are written; with --fail-on-violation, 3 (safety violation) if any cell had one. */
export function compareExitCode(r: Pick<CompareResult, "summaries">, failOnViolation: boolean): number {
  return failOnViolation && r.summaries.some((s) => s.failingSeeds.first.length > 0) ? EXIT.safetyViolation : EXIT.ok;
}

/** compare.html, matrix.json and the terminal text (table, skipped cells, replay lines). */
export function writeCompareOutputs(outDir: string, r: CompareResult): string {
  const matrixPath = join(outDir, "matrix.json");
  const htmlPath = join(outDir, "compare.html");
  writeJsonAtomic(matrixPath, { ...r.matrix, skipped: r.skipped });
  writeTextAtomic(htmlPath, renderComparePage(r.matrix));
  const lines: string[] = [formatCompareTable(r.matrix).trimEnd()];
  const written = [htmlPath, matrixPath];
  for (const s of r.skipped) lines.push(`skipped ${s.design} × ${s.scenario}: ${s.reason}`);
  const failing = r.summaries.filter((s) => s.replay);
  if (failing.length > 0) {
    lines.push("cells to look at (seed and replay):");
    for (const s of failing) {
      const cell = cellAt(r.matrix, s.scenario.design, s.scenario.name);
      // A violation, or only an outcome other than the scenario's `expect` (e.g. safe where unsafe was expected).
      const why = s.failingSeeds.first.length > 0 ? "safety violated" : "not the expected outcome";
      lines.push(`  ${s.scenario.design} × ${s.scenario.name} (${why}): seed ${cell?.failingSeed ?? s.unexpectedSeeds.first[0]} — ${s.replay}`);
    }
  }
  const reports = r.matrix.cells.filter((c) => c.failingReport).length;
  lines.push(`wrote ${written.join(", ")} and ${reports} failing-seed report(s) under ${join(outDir, "cells")}/`);
  return lines.join("\n") + "\n";
}
