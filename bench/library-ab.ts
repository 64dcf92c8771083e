/**
 * An in-process A/B of library runs' CPU time: this build against another build of
 * lockstep (a checkout of the commit before a change, built with tsc), on the same
 * library scenarios and seeds, in alternating rounds in one process, so the machine's
 * load falls on both alike. Prints CPU ms per run for each, the ratio this ÷ other
 * round by round (median [min–max]), and the load average before and after.
 *
 * No full GC is forced between rounds unless --forced-gc is given (and node runs with
 * --expose-gc): after V8's forced GC, optimized host code whose embedded objects died (a
 * finished run's realms) is thrown away, which a library run's own GCs were not seen to
 * do, so every round after one pays for warming up again; no lockstep command forces one.
 *
 * Run: node dist/bench/library-ab.js <other build's root> [rounds] [--forced-gc]
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
function cpuMsPerRun(run: Runner, load: (name: string) => unknown, forcedGc: boolean): number {
  let runs = 0;
  if (forcedGc) (globalThis as { gc?: () => void }).gc?.();
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

export async function main(otherRoot: string, rounds = 7, forcedGc = false): Promise<void> {
  if (forcedGc && typeof (globalThis as { gc?: unknown }).gc !== "function") throw new Error("--forced-gc needs node --expose-gc");
  const other = (await import(pathToFileURL(join(otherRoot, "dist", "harness", "runner.js")).href)) as { runScenario: Runner };
  const otherScenarios = (await import(pathToFileURL(join(otherRoot, "dist", "scenarios", "index.js")).href)) as { loadScenario: (n: string) => unknown };
  const measures = {
    this: () => cpuMsPerRun(runScenario as Runner, loadScenario, forcedGc),
    other: () => cpuMsPerRun(other.runScenario, otherScenarios.loadScenario, forcedGc),
  };
  measures.this();
  measures.other();
  const before = loadavg();
  const figures = alternatingRounds(measures, rounds);
  const after = loadavg();
  const gcNote = forcedGc ? ", a full GC forced before each" : "";
  console.log(
    `== library runs, CPU ms per run (${SCENARIOS.length} scenarios x ${SEEDS.length} seeds; median [min–max] of ${rounds} alternating rounds${gcNote}) ==`,
  );
  console.log(`this build   ${formatSpread(spreadOf(figures.this), 1)}`);
  console.log(`other build  ${formatSpread(spreadOf(figures.other), 1)}  (${otherRoot})`);
  console.log(`this ÷ other ${formatSpread(ratioSpread(figures.this, figures.other), 3)}`);
  console.log(`load average ${before.map((x) => x.toFixed(1)).join(" ")} before, ${after.map((x) => x.toFixed(1)).join(" ")} after, on ${cpus().length} cores`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const forcedGc = args.includes("--forced-gc");
  const [otherRoot, rounds] = args.filter((a) => a !== "--forced-gc");
  if (!otherRoot || (rounds !== undefined && !(Number.isInteger(Number(rounds)) && Number(rounds) > 0))) {
    console.error("usage: node dist/bench/library-ab.js <other build's root> [rounds: a whole number > 0] [--forced-gc]");
    process.exitCode = 2;
  } else
    main(otherRoot, rounds ? Number(rounds) : undefined, forcedGc).catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}
