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
    .option("--workers <n>", `worker threads (default: ${defaultWorkers()}, this machine's cores)`)
    .option("--out <dir>", "output directory", join("runs", "compare"))
    .option("--failing-max <k>", "failing seeds listed per cell summary", "20")
    .option(
      "--fail-on-violation",
      `exit ${EXIT.safetyViolation} if any cell had a safety violation, else ${EXIT.livenessViolation} if any lost liveness (for CI; by default compare exits 0 once its pages are written)`,
    )
    .action(async (opts: CompareFlags) => {
      checkOutputDir(opts.out);
      const designs = chosenDesigns(opts);
      if (opts.attacks !== undefined && opts.scenarios !== undefined) throw new InputError("<arg>", "--attacks", "either --attacks or --scenarios, not both");
      const attacks = opts.attacks === undefined ? undefined : attacksOf(opts.attacks);
      const scenarios = attacks ? [] : opts.scenarios ? list(opts.scenarios).map(loadScenario) : allScenarios().filter((s) => designs.includes(s.design));
      if (!attacks && scenarios.length === 0) throw new InputError("<arg>", "--scenarios", "expected at least one scenario");
      const range = parseCompareSeeds(opts.seeds);
      const workers = opts.workers !== undefined ? parseWorkers(opts.workers, "--workers") : defaultWorkers();
      const limit = parsePositiveInt(opts.failingMax, "--failing-max");
      const result = await runCompare({ designs, scenarios, ...(attacks ? { attacks } : {}), range, workers, outDir: opts.out, limit });
      if (result.matrix.cells.every((c) => c.runs === 0)) throw nothingRan(result, attacks !== undefined);
      process.stdout.write(printableLines(writeCompareOutputs(opts.out, result)));
      setExitCode(compareExitCode(result, opts.failOnViolation === true));
    });
}

/** --designs and --lock as the designs compared; each checked by name. */
function chosenDesigns(opts: CompareFlags): string[] {
  const designs = opts.designs ? list(opts.designs) : opts.lock !== undefined ? [] : DESIGNS.map((d) => d.name);
  if (opts.lock !== undefined) {
    // Checked here, so a missing file is an error naming --lock, not a skipped cell.
    if (!BUILTIN_ADAPTERS[opts.lock]) adapterPath(opts.lock, "<arg>", "--lock");
    designs.push(`${LIBRARY_PREFIX}${opts.lock}`);
  }
  const libraries = `library:<one of ${Object.keys(BUILTIN_ADAPTERS).join(", ")}>`;
  for (const d of designs) {
    if (d === `${LIBRARY_PREFIX}${opts.lock}`) continue;
    // The design `library` runs a lock library's adapter: it needs to be told which.
    if (designByName(d)?.runs === "adapter") throw new InputError("<arg>", "--designs", `"${d}" needs its adapter: ${libraries}, or --lock <adapter>`);
    if (d.startsWith(LIBRARY_PREFIX)) {
      if (!BUILTIN_ADAPTERS[d.slice(LIBRARY_PREFIX.length)])
        throw new InputError("<arg>", "--designs", `unknown library "${d.slice(LIBRARY_PREFIX.length)}"; expected ${libraries}`);
      continue;
    }
    if (!designByName(d)) {
      const names = DESIGNS.map((x) => x.name);
      throw new InputError("<arg>", "--designs", `unknown design "${d}"; ${didYouMean(d, names)}expected some of: ${names.join(", ")}`);
    }
  }
  if (designs.length === 0) throw new InputError("<arg>", "--designs", "expected at least one design");
  return designs;
}

/** Every cell was skipped: nothing was compared, so it is the input that is wrong (exit 2), with each cell's reason. */
function nothingRan(r: CompareResult, attacks: boolean): InputError {
  const why = r.skipped.map((s) => `${s.design} × ${s.scenario}: ${s.reason}`).join("; ");
  return new InputError(
    "<arg>",
    attacks ? "--attacks" : "--scenarios",
    `expected at least one ${attacks ? "attack" : "scenario"} that fits the chosen designs; every cell was skipped (${why})`,
  );
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

/** 0 once the pages are written; with --fail-on-violation, 3 if any cell had a safety violation, else 4 if any lost liveness. */
export function compareExitCode(r: Pick<CompareResult, "summaries">, failOnViolation: boolean): number {
  if (!failOnViolation) return EXIT.ok;
  if (r.summaries.some((s) => s.safety.violations > 0)) return EXIT.safetyViolation;
  return r.summaries.some((s) => s.liveness.violations > 0) ? EXIT.livenessViolation : EXIT.ok;
}

/** Why a cell is worth a look, in what its checkers said: safety and liveness are never confused. */
function whyToLook(s: CompareResult["summaries"][number]): string {
  if (s.safety.violations > 0) return `safety violated in ${s.safety.violations}/${s.runs}`;
  if (s.liveness.violations > 0) return `liveness lost in ${s.liveness.violations}/${s.runs}, safety held`;
  return "not the expected outcome";
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
      lines.push(`  ${s.scenario.design} × ${s.scenario.name} (${whyToLook(s)}): seed ${cell?.failingSeed ?? s.unexpectedSeeds.first[0]} — ${s.replay}`);
    }
  }
  const reports = r.matrix.cells.filter((c) => c.failingReport).length;
  lines.push(`wrote ${written.join(", ")} and ${reports} failing-seed report(s) under ${join(outDir, "cells")}/`);
  return lines.join("\n") + "\n";
}
