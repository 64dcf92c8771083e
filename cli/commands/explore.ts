import type { Command } from "commander";
import { didYouMean } from "../../sim/suggest.js";
import { join } from "node:path";
import { setExitCode } from "../exit-state.js";
import { EXIT } from "../../harness/exit-codes.js";
import { parsePositiveInt, parseSeed } from "../args.js";
import { allScenarios, loadScenario } from "../../scenarios/index.js";
import { designByName, DESIGNS } from "../../designs/index.js";
import { InputError } from "../../sim/errors.js";
import { CHECKERS } from "../../checkers/index.js";
import { runScenario } from "../../harness/runner.js";
import { explore, type ExploreResult } from "../../harness/explore/explore.js";
import { pickBase, shapeBase } from "../../harness/explore/base.js";
import { runSeed } from "../../harness/sweep/run-seed.js";
import { writeCounterexample, formatCounterexample } from "../../harness/sweep/counterexample.js";
import type { Scenario } from "../../scenarios/schema.js";
import { LOCK_FLAG } from "../lock-flag.js";
import { withLibrary } from "../../scenarios/with-library.js";
import { basename } from "node:path";
import { printableLines } from "../../harness/printable.js";
import { checkOutputDir } from "../../harness/safe-write.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import { describeWorkTime } from "../../sim/work-time.js";
import { buildRecord } from "../../harness/artifacts.js";
import { explainCounterexample, failureSignature, likeShipped, lockIdentity, type FailureSignature } from "../../reports/counterexample-story.js";

/** What `lockstep help explore` says after the options; docs/sweeps.md says the same. */
export const EXPLORE_EXIT_CODES = "Exit codes: 3 a counterexample was found (written to --out), 0 none within --runs, 2 bad input, 1 a lockstep bug.";

export interface ExploreFlags {
  lock?: string;
  design: string;
  base?: string;
  runs: string;
  shrinkRuns: string;
  seed: string;
  faultsMax: string;
  durationMs: string;
  serverFaultsOnly?: boolean;
  fencing?: boolean;
  checkers?: string;
  out?: string;
}

/**
 * The property: a run violates it when the composed safety verdict is false, or, with
 * `checkers`, when one of those checkers fails (e.g. only mutual-exclusion: a double holder).
 */
export function violation(checkers?: readonly string[]): (s: Scenario, seed: number) => boolean {
  return (s, seed) => {
    const r = runSeed(s, seed);
    return checkers ? checkers.some((c) => r.checkers[c] === false) : r.safety === false;
  };
}

export function parseCheckerList(text: string | undefined, flag: string): string[] | undefined {
  if (text === undefined) return undefined;
  const names = text
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x.length > 0);
  const known = CHECKERS.map((c) => c.name);
  for (const n of names)
    if (!known.includes(n)) throw new InputError("<arg>", flag, `unknown checker "${n}"; ${didYouMean(n, known)}expected some of: ${known.join(", ")}`);
  if (names.length === 0) throw new InputError("<arg>", flag, "expected a comma-separated list of checker names");
  return names;
}

export function registerExplore(program: Command): void {
  program
    .command("explore")
    .description("draw random fault schedules and workloads (fast-check) against a design's safety; shrink a violation to a smallest scenario file")
    .requiredOption("--design <name>", "the lock design to explore (see `lockstep list`)")
    .option("--base <scenario>", "the scenario to vary (default: the design's baseline)")
    .option("--runs <n>", "runs drawn before giving up", "200")
    .option("--shrink-runs <n>", "runs spent shrinking at most", "400")
    .option("--seed <n>", "fast-check's seed (the same seed explores the same schedules)", "1")
    .option("--faults-max <n>", "fault steps per schedule at most", "6")
    .option("--duration-ms <n>", "longest run, ms: a longer base is cut to it, a shorter one keeps its own length", "6000")
    .option("--server-faults-only", "only faults whose targets are servers (no client pauses or client partitions)")
    .option("--fencing", "make the protected resource check fencing tokens")
    .option("--checkers <list>", "the property: these checkers pass (default: the composed safety verdict of every safety checker)")
    .option("--out <dir>", "where to write the counterexample (default: runs/explore-<design>-seed<N>)")
    .option(...LOCK_FLAG)
    .addHelpText("after", `\n${EXPLORE_EXIT_CODES}`)
    .action((opts: ExploreFlags) => {
      // Before the search: a bad --out should cost nothing.
      if (opts.out) checkOutputDir(opts.out);
      const r = exploreCommand(opts);
      process.stdout.write(printableLines(r.text));
      setExitCode(r.code);
    });
}

/** The command's work, separate from commander so tests can call it and read the result. */
export function exploreCommand(opts: ExploreFlags): { text: string; code: number; result: ExploreResult; file?: string; story?: string[] } {
  if (!designByName(opts.design)) {
    throw new InputError(
      "<arg>",
      "--design",
      `unknown design "${opts.design}"; ${didYouMean(
        opts.design,
        DESIGNS.map((d) => d.name),
      )}expected one of: ${DESIGNS.map((d) => d.name).join(", ")}`,
    );
  }
  const runs = parsePositiveInt(opts.runs, "--runs");
  const shrinkRunsMax = parsePositiveInt(opts.shrinkRuns, "--shrink-runs");
  const seed = parseSeed(opts.seed, "--seed");
  const stepsMax = parsePositiveInt(opts.faultsMax, "--faults-max");
  const durationMsMax = parsePositiveInt(opts.durationMs, "--duration-ms");
  const checkers = parseCheckerList(opts.checkers, "--checkers");
  const raw = opts.base ? loadScenario(opts.base) : pickBase(opts.design, allScenarios());
  if (raw.design !== opts.design) throw new InputError("<arg>", "--base", `scenario ${raw.name} is for design ${raw.design}, not ${opts.design}`);
  const subject = opts.lock === undefined ? opts.design : `${opts.design}-${basename(opts.lock).replace(/\.c?js$/, "")}`;
  const name = `explore-${subject}-seed${seed}`;
  // --lock: the same schedules, run on the real library in the design's place.
  const onLibrary = opts.lock === undefined ? raw : withLibrary(raw, opts.lock);
  const base = { ...shapeBase(onLibrary, { durationMsMax, fencing: opts.fencing }), name };
  // One run of the base names the design's server processes, the targets faults may pick.
  const probe = runScenario(base, base.seed);
  const space = {
    servers: probe.meta.serverIds,
    clients: probe.meta.clientIds,
    durationMs: base.durationMs,
    ttlMs: base.workload.ttlMs,
    serverOnly: opts.serverFaultsOnly ?? false,
    stepsMax,
  };
  const violates = violation(checkers);
  const result = explore({ base, space, runs, shrinkRunsMax, seed, violates });
  const length =
    base.durationMs < raw.durationMs
      ? `${base.durationMs} ms (base ${raw.name} cut from ${raw.durationMs} ms)`
      : `${base.durationMs} ms (base ${raw.name}'s own length; --duration-ms ${durationMsMax} is the cap)`;
  const how = `fast-check seed ${seed}, up to ${runs} runs of ${length}${opts.lock ? ` run on ${opts.lock}` : ""}${space.serverOnly ? ", server-side faults only" : ""}${base.workload.fencing ? ", fencing on" : ""}, property: ${checkers ? checkers.join(" + ") : "safety"}`;
  if (!result.found || !result.counterexample) {
    return { text: `lockstep explore ${opts.design}: no safety violation in ${result.runs} runs (${how})\n`, code: EXIT.ok, result };
  }
  const dir = opts.out ?? join("runs", name);
  const cx = result.counterexample;
  const shrunk: Scenario = {
    ...cx.scenario,
    title: `${opts.design}: a counterexample found by lockstep explore`,
    story:
      `Found by \`lockstep explore --design ${opts.design} --seed ${seed}\` (${how}): draw number ${result.runs} violated safety ` +
      `with ${result.original?.faults.length ?? "?"} fault step(s); fast-check shrank it in ${result.shrinks} step(s) (${result.shrinkRuns} runs) to this one, ` +
      `from base scenario ${raw.name} (run for ${base.durationMs} ms, TTL ${base.workload.ttlMs} ms).`,
  };
  const story = storyOf(shrunk, cx.seed);
  const told: Scenario = { ...shrunk, story: `${shrunk.story}\n\nWhat happened, from the run's history:\n${story.map((l) => `- ${l}`).join("\n")}` };
  const written = writeCounterexample(dir, told, cx.seed, violates);
  const lines = [
    `lockstep explore ${opts.design}: property violated after ${result.runs} run(s) (${how})`,
    `shrunk in ${result.shrinks} step(s) (${result.shrinkRuns} runs) from ${result.original?.faults.length ?? "?"} to ${shrunk.faults.length} fault step(s); workload ${workloadDiff(base, shrunk)}`,
    ...formatCounterexample(written),
    "what happened, from the run's history:",
    ...story.map((l) => `  ${l}`),
  ];
  return { text: lines.join("\n") + "\n", code: EXIT.safetyViolation, result, file: written.file, story };
}

/** The counterexample's story from one run of it, and the shipped scenarios that fail the same way. */
function storyOf(s: Scenario, seed: number): string[] {
  const run = runScenario(s, seed);
  const verdicts = runCheckers(run.history, checkContextFor(s));
  const record = buildRecord(s, seed, run, verdicts);
  const failed = verdicts.results.filter((r) => r.valid === false).map((r) => r.checker);
  return explainCounterexample(record, run.history, likeShipped(failureSignature(s, failed), shippedSignatures(lockIdentity(s))));
}

/** Each shipped scenario of the same lock that is expected to fail, run on its own seed. */
export function shippedSignatures(lock: string): Array<{ name: string; sig: FailureSignature }> {
  return allScenarios()
    .filter((s) => s.expect !== "safe" && lockIdentity(s) === lock)
    .map((s) => {
      const r = runSeed(s, s.seed);
      return {
        name: s.name,
        sig: failureSignature(
          s,
          Object.keys(r.checkers).filter((c) => r.checkers[c] === false),
        ),
      };
    });
}

function workloadDiff(base: Scenario, s: Scenario): string {
  const d: string[] = [];
  for (const k of ["ttlMs", "workMs", "thinkMs"] as const)
    if (s.workload[k] !== base.workload[k]) d.push(`${k} ${describeWorkTime(s.workload[k])} (base ${describeWorkTime(base.workload[k])})`);
  return d.length > 0 ? d.join(", ") : "as the base";
}
