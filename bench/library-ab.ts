/**
 * An in-process A/B of library runs' CPU time: this build against another build of
 * lockstep (a checkout of the commit before a change, built with tsc), on the same
 * library scenarios and seeds, in alternating rounds in one process, so the machine's
 * load falls on both alike. Prints CPU ms per run for each, the ratio this ÷ other
 * round by round (median [min–max]), and the load average before and after.
 *
 * Run: node --expose-gc dist/bench/library-ab.js <other build's root> [rounds]
 */
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadScenario } from "../scenarios/index.js";
import { runScenario } from "../harness/runner.js";
import { alternatingRounds, formatSpread, ratioSpread, spreadOf } from "./rounds.js";

const SCENARIOS = [
  "redlock-baseline@redlock-v4",
  "redlock-baseline@redlock-v5",
  "redlock-baseline@redis-semaphore-redlock",
  "library-redis-lock-baseline",
  "redlock-gc-pause@redlock-v4",
];
const SEEDS = [1, 2, 3, 4];

type Runner = (s: unknown, seed: number) => unknown;

/** CPU ms per run of every scenario and seed, with `run` and `load`. */
function cpuMsPerRun(run: Runner, load: (name: string) => unknown): number {
  let runs = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const t = process.cpuUsage();
  for (const name of SCENARIOS) {
    const s = load(name);
    for (const seed of SEEDS) {
      run(s, seed);
      runs++;
    }
  }
  const c = process.cpuUsage(t);
  return (c.user + c.system) / 1000 / runs;
}

export async function main(otherRoot: string, rounds = 7): Promise<void> {
  const other = (await import(pathToFileURL(join(otherRoot, "dist", "harness", "runner.js")).href)) as { runScenario: Runner };
  const otherScenarios = (await import(pathToFileURL(join(otherRoot, "dist", "scenarios", "index.js")).href)) as { loadScenario: (n: string) => unknown };
  const measures = {
    this: () => cpuMsPerRun(runScenario as Runner, loadScenario),
    other: () => cpuMsPerRun(other.runScenario, otherScenarios.loadScenario),
  };
  measures.this();
  measures.other();
  const before = loadavg();
  const figures = alternatingRounds(measures, rounds);
  const after = loadavg();
  console.log(`== library runs, CPU ms per run (${SCENARIOS.length} scenarios x ${SEEDS.length} seeds; median [min–max] of ${rounds} alternating rounds) ==`);
  console.log(`this build   ${formatSpread(spreadOf(figures.this), 1)}`);
  console.log(`other build  ${formatSpread(spreadOf(figures.other), 1)}  (${otherRoot})`);
  console.log(`this ÷ other ${formatSpread(ratioSpread(figures.this, figures.other), 3)}`);
  console.log(`load average ${before.map((x) => x.toFixed(1)).join(" ")} before, ${after.map((x) => x.toFixed(1)).join(" ")} after, on ${cpus().length} cores`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [otherRoot, rounds] = process.argv.slice(2);
  if (!otherRoot) {
    console.error("usage: node --expose-gc dist/bench/library-ab.js <other build's root> [rounds]");
    process.exitCode = 2;
  } else
    main(otherRoot, rounds ? Number(rounds) : undefined).catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}
