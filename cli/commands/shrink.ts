import type { Command } from "commander";
import { join } from "node:path";
import { setExitCode } from "../exit-state.js";
import { EXIT } from "../../harness/exit-codes.js";
import { parsePositiveInt, parseSeed } from "../args.js";
import { loadScenario } from "../../scenarios/index.js";
import { InputError } from "../../sim/errors.js";
import { shrinkScenario, type ShrinkResult } from "../../harness/explore/shrink.js";
import { runSeed } from "../../harness/sweep/run-seed.js";
import { writeCounterexample } from "../../harness/sweep/counterexample.js";
import { formatCounterexample } from "../../terminal/counterexample.js";
import { parseCheckerList } from "./explore.js";
import { violation } from "../../harness/explore/runs.js";
import type { Scenario } from "../../scenarios/schema.js";
import { LOCK_FLAG, withLockFlag } from "../lock-flag.js";
import { printableLines } from "../../terminal/printable.js";
import { checkOutputDir } from "../../harness/safe-write.js";

export interface ShrinkFlags {
  lock?: string;
  seed?: string;
  runs: string;
  checkers?: string;
  out?: string;
}

export function registerShrink(program: Command): void {
  program
    .command("shrink")
    .description("shrink a failing run (scenario + seed) to a smallest scenario that still violates safety; write it and its report")
    .argument("<scenario>", "a scenario name or a path to a scenario JSON file")
    .option("--seed <n>", "the failing run's seed (default: the scenario's own)")
    .option("--runs <n>", "runs spent shrinking at most", "300")
    .option("--checkers <list>", "what must keep failing (default: the composed safety verdict)")
    .option("--out <dir>", "where to write the shrunk scenario (default: runs/shrink-<scenario>-seed<N>)")
    .option(...LOCK_FLAG)
    .action((name: string, opts: ShrinkFlags) => {
      if (opts.out) checkOutputDir(opts.out);
      const r = shrinkCommand(name, opts);
      process.stdout.write(printableLines(r.text));
      setExitCode(r.code);
    });
}

export function shrinkCommand(name: string, opts: ShrinkFlags): { text: string; code: number; result: ShrinkResult; file: string } {
  const scenario = loadScenario(withLockFlag(name, opts.lock));
  const seed = opts.seed !== undefined ? parseSeed(opts.seed, "--seed") : scenario.seed;
  const runsMax = parsePositiveInt(opts.runs, "--runs");
  const checkers = parseCheckerList(opts.checkers, "--checkers");
  const violates = violation(checkers);
  if (!violates(scenario, seed)) {
    const what = checkers ? `no failure of ${checkers.join(", ")}` : "no safety violation";
    // Without --seed the seed is the scenario's own: blame the scenario, not a flag never passed.
    const whose = opts.seed !== undefined ? "--seed" : "scenario";
    const hint = opts.seed !== undefined ? "" : "; pass --seed N of a failing run (lockstep explore finds one)";
    throw new InputError(
      "<arg>",
      whose,
      `expected a failing run: ${scenario.name} with seed ${seed} has ${what} (outcome ${runSeed(scenario, seed).outcome}); nothing to shrink${hint}`,
    );
  }
  const result = shrinkScenario({ scenario, seed, runsMax, violates });
  // The name stays: a run's random streams are seeded by scenario name and seed.
  const shrunk: Scenario = {
    ...result.scenario,
    title: `${scenario.title} (shrunk)`,
    story: `Shrunk by \`lockstep shrink ${name} --seed ${seed}\` from ${scenario.faults.length} fault step(s) and ${scenario.clients.length} client(s) to ${result.scenario.faults.length} and ${result.scenario.clients.length}, in ${result.shrinks} step(s) (${result.runs} runs${result.minimal ? "" : ", budget spent"}). The original story: ${scenario.story}`,
  };
  const dir = opts.out ?? join("runs", `shrink-${scenario.name}-seed${seed}`);
  const written = writeCounterexample(dir, shrunk, seed, violates);
  const lines = [
    `lockstep shrink ${scenario.name} seed ${seed}: ${scenario.faults.length} → ${shrunk.faults.length} fault step(s), ${scenario.clients.length} → ${shrunk.clients.length} client(s) in ${result.shrinks} step(s), ${result.runs} runs${result.minimal ? " (no smaller candidate fails)" : " (budget spent)"}`,
    ...formatCounterexample(written),
  ];
  return { text: lines.join("\n") + "\n", code: EXIT.safetyViolation, result, file: written.file };
}
