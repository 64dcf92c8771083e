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
import { judgedShrunk, referenceFor, runReference, storyOf, violation } from "../../harness/explore/runs.js";
import { pickBase, shapeBase } from "../../harness/explore/base.js";
import { writeCounterexample } from "../../harness/sweep/counterexample.js";
import { formatCounterexample } from "../../terminal/counterexample.js";
import type { Scenario } from "../../scenarios/schema.js";
import { LOCK_FLAG } from "../lock-flag.js";
import { withLibrary } from "../../scenarios/with-library.js";
import { printableLines } from "../../terminal/printable.js";
import { adapterSlug } from "../../harness/adapter-slug.js";
import { StepProgress, type ProgressStream } from "../../harness/sweep/progress.js";
import { checkOutputDir } from "../../harness/safe-write.js";
import { describeWorkTime } from "../../sim/work-time.js";
import { Differential, DIFFERENTIAL_SEEDS, ratesText } from "../../harness/explore/differential.js";
import type { LockUnderTest } from "../../attacks/index.js";

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
  differential?: boolean;
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
    .option(
      "--differential",
      "with --lock: look only for schedules under which the library is unsafe more often than the reference recipe (the seeds' SET NX PX, or node-redlock on N nodes, over the same client): 20 seeds each, 95% intervals apart; a bug in the library, not the backend's limit",
    )
    .action((opts: ExploreFlags) => {
      // Before the search: a bad --out should cost nothing.
      if (opts.out) checkOutputDir(opts.out);
      const progress = exploreProgress(`explore ${opts.design}`, opts);
      const r = exploreCommand(opts, progress.onRun);
      progress.done();
      process.stdout.write(printableLines(r.text));
      setExitCode(r.code);
    });
}

/** The command's work, separate from commander so tests can call it and read the result. */
export function exploreCommand(
  opts: ExploreFlags,
  onRun?: (phase: "search" | "shrink", runs: number) => void,
): { text: string; code: number; result: ExploreResult; file?: string; story?: string[] } {
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
  if (opts.differential && opts.lock === undefined) {
    throw new InputError("<arg>", "--differential", "also --lock <adapter>: the differential compares a lock library with the reference recipe");
  }
  const raw = opts.base ? loadScenario(opts.base) : pickBase(opts.design, allScenarios());
  if (raw.design !== opts.design) throw new InputError("<arg>", "--base", `scenario ${raw.name} is for design ${raw.design}, not ${opts.design}`);
  const subject = opts.lock === undefined ? opts.design : `${opts.design}-${adapterSlug(opts.lock)}`;
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
  const reference = opts.differential ? referenceFor(base) : undefined;
  const diff = reference ? new Differential(violation(checkers), reference) : undefined;
  const violates = diff ? diff.search : violation(checkers);
  const result = explore({ base, space, runs, shrinkRunsMax, seed, violates, ...(diff ? { shrinkViolates: diff.shrink } : {}), ...(onRun ? { onRun } : {}) });
  const length =
    base.durationMs < raw.durationMs
      ? `${base.durationMs} ms (base ${raw.name} cut from ${raw.durationMs} ms)`
      : `${base.durationMs} ms (base ${raw.name}'s own length; --duration-ms ${durationMsMax} is the cap)`;
  const property = `${checkers ? checkers.join(" + ") : "safety"}${reference ? ` (differential: a schedule counts only when it is unsafe more often than on ${reference.label}, over ${DIFFERENTIAL_SEEDS} seeds with 95% intervals apart)` : ""}`;
  const how = `fast-check seed ${seed}, up to ${runs} runs of ${length}${opts.lock ? ` run on ${opts.lock}` : ""}${space.serverOnly ? ", server-side faults only" : ""}${base.workload.fencing ? ", fencing on" : ""}, property: ${property}`;
  if (!result.found || !result.counterexample) {
    const none = reference ? `no schedule unsafe on ${opts.lock} more often than on ${reference.label}` : "no safety violation";
    return { text: `lockstep explore ${opts.design}: ${none} in ${result.runs} runs (${how})\n${diff ? noneRates(diff) : ""}`, code: EXIT.ok, result };
  }
  return found({ opts, result, base, raw, how, dir: opts.out ?? join("runs", name), seed, violates, ...(diff && reference ? { diff, reference } : {}) });
}

interface Found {
  opts: ExploreFlags;
  result: ExploreResult;
  base: Scenario;
  raw: Scenario;
  how: string;
  dir: string;
  seed: number;
  violates: (s: Scenario, seed: number) => boolean;
  diff?: Differential;
  reference?: LockUnderTest;
}

/** A violation found: its counterexample written, told from its run's history, with the reference's rates beside it. */
function found(f: Found): ReturnType<typeof exploreCommand> {
  const { opts, result, base, raw, how, diff, reference } = f;
  const cx = diff ? judgedShrunk(result, base, diff) : result.counterexample!;
  const shrunk: Scenario = {
    ...cx.scenario,
    title: `${opts.design}: a counterexample found by lockstep explore`,
    story:
      `Found by \`lockstep explore --design ${opts.design} --seed ${f.seed}\` (${how}): draw number ${result.runs} violated safety ` +
      `with ${result.original?.faults.length ?? "?"} fault step(s); fast-check shrank it in ${result.shrinks} step(s) (${result.shrinkRuns} runs) to this one, ` +
      `from base scenario ${raw.name} (run for ${base.durationMs} ms, TTL ${base.workload.ttlMs} ms).`,
  };
  const story = storyOf(shrunk, cx.seed);
  const told: Scenario = { ...shrunk, story: `${shrunk.story}\n\nWhat happened, from the run's history:\n${story.map((l) => `- ${l}`).join("\n")}` };
  const written = writeCounterexample(f.dir, told, cx.seed, f.violates);
  const lines = [
    `lockstep explore ${opts.design}: property violated after ${result.runs} run(s) (${how})`,
    ...(diff && reference ? referenceLines(written.scenario, reference, cx.seed, f.dir, diff) : []),
    `shrunk in ${result.shrinks} step(s) (${result.shrinkRuns} runs) from ${result.original?.faults.length ?? "?"} to ${shrunk.faults.length} fault step(s); workload ${workloadDiff(base, shrunk)}`,
    ...formatCounterexample(written),
    "what happened, from the run's history:",
    ...story.map((l) => `  ${l}`),
  ];
  return { text: lines.join("\n") + "\n", code: EXIT.safetyViolation, result, file: written.file, story };
}

/** What a differential search that found nothing saw: the schedules unsafe here, judged on many seeds. */
function noneRates(diff: Differential): string {
  const t = diff.totals();
  if (t.schedules === 0) return "no drawn schedule was unsafe on its own seed\n";
  return `${t.schedules} drawn schedule(s) were unsafe on their own seed; judged on paired seeds (${t.seeds} in all): unsafe ${t.here}/${t.seeds} here, ${t.there}/${t.seeds} on the reference; no schedule's 95% intervals apart\n`;
}

/** What the reference made of the counterexample, with its run written beside the library's. */
function referenceLines(s: Scenario, reference: LockUnderTest, seed: number, dir: string, diff: Differential): string[] {
  const refDir = runReference(s, reference, seed, dir).dir;
  return [
    `the same schedule: ${ratesText(diff.rates(s, seed), reference.label)}; the 95% intervals do not meet, so this is the library's own bug, not a limit of the backend`,
    `the reference run: ${refDir}/ (history.jsonl, results.json, report.html)`,
  ];
}

/** Progress on stderr for a search that can take minutes (StepProgress: in place on a terminal, a line every 5 s piped). */
function exploreProgress(label: string, opts: ExploreFlags, out: ProgressStream = process.stderr) {
  const p = new StepProgress(label, out);
  return {
    onRun(phase: "search" | "shrink", n: number): void {
      p.step(phase === "search" ? `${n}/${opts.runs} runs, no violation yet` : `violation found; shrinking, ${n}/${opts.shrinkRuns} runs`);
    },
    done: () => p.done(),
  };
}

function workloadDiff(base: Scenario, s: Scenario): string {
  const d: string[] = [];
  for (const k of ["ttlMs", "workMs", "thinkMs"] as const)
    if (s.workload[k] !== base.workload[k]) d.push(`${k} ${describeWorkTime(s.workload[k])} (base ${describeWorkTime(base.workload[k])})`);
  return d.length > 0 ? d.join(", ") : "as the base";
}
