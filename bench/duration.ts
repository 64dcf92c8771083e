/**
 * The `run --duration` path at scale beside the batch run: raft-zk-scale (1000 clients,
 * 1000 locks) for DURATION_S simulated s (default 5), in alternating rounds, each run in a
 * fresh child process under the V8 flags `lockstep run` sets for it (cli/heap.ts):
 *   batch:    runScenario, then every checker on the held history (`run`);
 *   duration: runSoak, every checker online in its own thread (`run --duration`);
 *   duration in one thread: runSoak with the checkers in the run's thread (the path before
 *             harness/soak-checkers.ts), for the thread's gain and cost.
 * Printed per path, each the median of the rounds with the slowest and fastest beside it:
 * simulated s per wall s, CPU s per simulated s (the process, and the busiest thread, from
 * /proc/self/task: what the wall would be with a core per thread), peak RSS; and round by
 * round the ratio of the duration path's simulated s per wall s to the batch's. Module
 * loading and the files a run writes are outside the timing. Figures are reported, never
 * judged; on a shared machine read the CPU figures.
 *
 * Run: npm run bench:duration   (DURATION_S=20 for longer runs, DURATION_ROUNDS=n for n rounds)
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadScenario } from "../scenarios/index.js";
import { runScenario } from "../harness/runner.js";
import { runCheckers } from "../checkers/run-all.js";
import { checkContextFor } from "../harness/check-context.js";
import { runSoak } from "../harness/soak.js";
import { heapFlags } from "../cli/heap.js";
import { alternatingRounds, formatSpread, loadAverage, ratioSpread, spreadOf } from "./rounds.js";
import { reportTarget } from "./targets.js";

const SCALE = "raft-zk-scale";
const DURATION_S = Number(process.env.DURATION_S ?? 5);
const ROUNDS = Number(process.env.DURATION_ROUNDS ?? 3);
/** What the lead's 1-hour soak needs: the hour in less than an hour of wall time, with a margin. */
const TARGET_SIM_S_PER_WALL_S = 1.1;

type Path = "batch" | "duration" | "duration-one-thread";
const PATHS: readonly Path[] = ["batch", "duration", "duration-one-thread"];

interface Measured {
  wallS: number;
  cpuS: number;
  busiestThreadCpuS: number;
  peakRssMb: number;
  outcome: string;
}

/** CPU seconds of each of this process's threads (utime + stime, in clock ticks of 1/100 s). */
function threadCpuS(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.set(tid, (Number(fields[11]) + Number(fields[12])) / 100);
  }
  return out;
}

function cpuS(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e6;
}

/** In the child: one run of `path`, timed from the run's start to its verdicts. */
function child(path: Path): Measured {
  const s = loadScenario(SCALE);
  const durationMs = DURATION_S * 1000;
  let threadsAtEnd = new Map<string, number>();
  const before = threadCpuS();
  const [w0, c0] = [performance.now(), cpuS()];
  let outcome: string;
  if (path === "batch") {
    const scenario = { ...s, durationMs };
    outcome = runCheckers(runScenario(scenario, s.seed).history, checkContextFor(scenario)).outcome;
    threadsAtEnd = threadCpuS();
  } else {
    // The checker thread's CPU is read just before the run ends, while the thread is alive.
    const progress = (simMs: number): void => void (simMs >= 0.99 * durationMs && threadsAtEnd.size === 0 && (threadsAtEnd = threadCpuS()));
    outcome = runSoak(s, s.seed, { durationMs, progress, checkerThread: path === "duration" }).verdicts.outcome;
    for (const [tid, t] of threadCpuS()) if (!threadsAtEnd.has(tid) || t > threadsAtEnd.get(tid)!) threadsAtEnd.set(tid, t);
  }
  const [wallS, cpu] = [(performance.now() - w0) / 1000, cpuS() - c0];
  const busiest = Math.max(...[...threadsAtEnd].map(([tid, t]) => t - (before.get(tid) ?? 0)));
  return { wallS, cpuS: cpu, busiestThreadCpuS: busiest, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1000), outcome };
}

/** One round of `path` in a fresh process with the flags `lockstep run` sets for that path. */
function measure(path: Path): Measured {
  const self = fileURLToPath(import.meta.url);
  const args = [...heapFlags([], path !== "batch"), self, "--child", path];
  const out = execFileSync(process.execPath, args, { encoding: "utf8", maxBuffer: 16 << 20, env: { ...process.env } });
  return JSON.parse(out.trim().split("\n").pop()!) as Measured;
}

function printPath(path: Path, rounds: Measured[]): void {
  const per = (f: (m: Measured) => number, digits: number): string => formatSpread(spreadOf(rounds.map(f)), digits);
  console.log(`${path}: outcome ${[...new Set(rounds.map((m) => m.outcome))].join(", ")}`);
  console.log(`  ${per((m) => DURATION_S / m.wallS, 2)} sim s / wall s; ${per((m) => m.cpuS / DURATION_S, 2)} CPU s / sim s (process)`);
  console.log(`  ${per((m) => m.busiestThreadCpuS / DURATION_S, 2)} CPU s / sim s (busiest thread); peak RSS ${per((m) => m.peakRssMb, 0)} MB`);
}

function main(): void {
  console.log(`== run --duration beside the batch run: ${SCALE}, ${DURATION_S} simulated s, each run in its own process under run's heap flags ==`);
  console.log(`load average before: ${loadAverage(2)}; ${ROUNDS} alternating rounds`);
  const results = Object.fromEntries(PATHS.map((p) => [p, [] as Measured[]])) as Record<Path, Measured[]>;
  const record = (p: Path) => () => (results[p].push(measure(p)), 0);
  alternatingRounds({ batch: record("batch"), duration: record("duration"), "duration-one-thread": record("duration-one-thread") }, ROUNDS);
  console.log(`load average after: ${loadAverage(2)}`);
  for (const p of PATHS) printPath(p, results[p]);
  const rate = (p: Path) => results[p].map((m) => DURATION_S / m.wallS);
  console.log(`duration ÷ batch, sim s / wall s round by round: ${formatSpread(ratioSpread(rate("duration"), rate("batch")), 2)}`);
  console.log(`duration ÷ duration in one thread: ${formatSpread(ratioSpread(rate("duration"), rate("duration-one-thread")), 2)}`);
  const wall = spreadOf(rate("duration"));
  reportTarget(
    `: ${SCALE} run --duration ≥ ${TARGET_SIM_S_PER_WALL_S} sim s / wall s: ${formatSpread(wall, 2)} (${wall.median >= TARGET_SIM_S_PER_WALL_S ? "met" : "not met"}); peak RSS ${formatSpread(spreadOf(results.duration.map((m) => m.peakRssMb)), 0)} MB; load ${loadAverage(2)}`,
  );
}

if (process.argv[2] === "--child") console.log(JSON.stringify(child(process.argv[3] as Path)));
else main();
