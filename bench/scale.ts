/**
 * The simulator at the scale the Raft-ZK design sets: `raft-zk-scale` (5 servers, 1000
 * clients, 1000 locks, 5 simulated s) beside the same scenario with 10 clients, measured
 * in alternating rounds of one process (bench/rounds.ts), every checker run on each
 * history as `lockstep run` does. Printed per scale: simulated seconds per wall second
 * and per CPU second of this process (the run and its checking, and the run alone),
 * events per wall and per CPU second, and, round by round, the ratio of events per
 * second at 1000 clients over 10 clients, each as the median of the rounds with the
 * slowest and fastest beside it. The machine's load is printed before and after: on a
 * shared machine the wall figures move with it, the CPU figures far less.
 *
 * Simulated seconds are the scenario's durationMs (5 s), not the quiet drain after it.
 * A 10-client round runs several seeds (one 5 s run is too short to time). Figures are
 * reported, never judged.
 *
 * Run: npm run build && node dist/bench/scale.js   (SCALE_ROUNDS=n to change the 5 rounds)
 */
import { cpus, loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { loadScenario } from "../scenarios/index.js";
import type { Scenario } from "../scenarios/schema.js";
import { runScenario } from "../harness/runner.js";
import { runCheckers } from "../checkers/run-all.js";
import { checkContextFor } from "../harness/check-context.js";
import { alternatingRounds, formatSpread, ratioSpread, spreadOf } from "./rounds.js";
import { reportTarget } from "./targets.js";

const ROUNDS = Number(process.env.SCALE_ROUNDS ?? 5);
/** Seeds of a 10-client round: enough events (~20 × 18k) that its time is not noise. */
const SMALL_SEEDS = 20;
export const SCALE_TARGET_SIM_S_PER_WALL_S = 1;
export const SCALE_TARGET_EVENTS_RATIO = 0.5;

interface Round {
  simS: number;
  events: number;
  runWallMs: number;
  runCpuMs: number;
  checkWallMs: number;
  checkCpuMs: number;
  outcomes: Set<string>;
}

const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** One round: each seed run, then checked by every checker; times summed over the seeds. */
function round(s: Scenario, seeds: readonly number[]): Round {
  const r: Round = { simS: 0, events: 0, runWallMs: 0, runCpuMs: 0, checkWallMs: 0, checkCpuMs: 0, outcomes: new Set() };
  const ctx = checkContextFor(s);
  for (const seed of seeds) {
    let w = performance.now();
    let c = cpuMs();
    const out = runScenario(s, seed);
    r.runWallMs += performance.now() - w;
    r.runCpuMs += cpuMs() - c;
    w = performance.now();
    c = cpuMs();
    const v = runCheckers(out.history, ctx);
    r.checkWallMs += performance.now() - w;
    r.checkCpuMs += cpuMs() - c;
    r.simS += s.durationMs / 1000;
    r.events += out.meta.eventsRun;
    r.outcomes.add(v.outcome);
  }
  return r;
}

function withClients(s: Scenario, n: number): Scenario {
  return { ...s, name: `${s.name}-${n}-clients`, clients: s.clients.slice(0, n) };
}

function load(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
}

interface Row {
  label: string;
  rounds: Round[];
}

function printRow({ label, rounds }: Row): void {
  const per = (f: (r: Round) => number, digits: number): string => formatSpread(spreadOf(rounds.map(f)), digits);
  const r0 = rounds[0]!;
  console.log(`${label}: ${r0.events} events in ${r0.simS} simulated s a round, outcome ${[...r0.outcomes].join(", ")}`);
  console.log(
    `  run + checkers: ${per((r) => r.simS / ((r.runWallMs + r.checkWallMs) / 1000), 2)} sim s / wall s, ${per((r) => r.simS / ((r.runCpuMs + r.checkCpuMs) / 1000), 2)} sim s / CPU s`,
  );
  console.log(`  run alone:      ${per((r) => r.simS / (r.runWallMs / 1000), 2)} sim s / wall s, ${per((r) => r.simS / (r.runCpuMs / 1000), 2)} sim s / CPU s`);
  console.log(`  events / s:     ${per((r) => r.events / (r.runWallMs / 1000), 0)} wall, ${per((r) => r.events / (r.runCpuMs / 1000), 0)} CPU (the run alone)`);
  console.log(`  checking:       ${per((r) => r.checkWallMs, 0)} ms wall, ${per((r) => r.checkCpuMs, 0)} ms CPU a round`);
}

export function main(): void {
  const scale = loadScenario("raft-zk-scale");
  const small = withClients(scale, 10);
  const seeds = Array.from({ length: SMALL_SEEDS }, (_, i) => i + 1);
  console.log(
    `== scale: raft-zk-scale (5 servers, ${scale.clients.length} clients, ${scale.workload.locks.length} locks) against ${small.clients.length} clients ==`,
  );
  console.log(`${cpus().length} cores; load average before: ${load()}; ${ROUNDS} alternating rounds after a warm-up round of each`);
  // Warm-up: the JIT compiles the paths of both sizes before any round is timed.
  round(small, [1]);
  round(scale, [scale.seed]);
  const rounds: Record<"small" | "scale", Round[]> = { small: [], scale: [] };
  alternatingRounds(
    {
      small: () => (rounds.small.push(round(small, seeds)), 0),
      scale: () => (rounds.scale.push(round(scale, [scale.seed])), 0),
    },
    ROUNDS,
  );
  console.log(`load average after: ${load()}`);
  printRow({ label: `${small.clients.length} clients (seeds 1-${SMALL_SEEDS})`, rounds: rounds.small });
  printRow({ label: `${scale.clients.length} clients (seed ${scale.seed})`, rounds: rounds.scale });
  const evWall = (rs: Round[]) => rs.map((r) => r.events / r.runWallMs);
  const evCpu = (rs: Round[]) => rs.map((r) => r.events / r.runCpuMs);
  const ratioWall = ratioSpread(evWall(rounds.scale), evWall(rounds.small));
  const ratioCpu = ratioSpread(evCpu(rounds.scale), evCpu(rounds.small));
  console.log(
    `events / s at ${scale.clients.length} clients ÷ at ${small.clients.length}, round by round: ${formatSpread(ratioWall, 2)} wall, ${formatSpread(ratioCpu, 2)} CPU`,
  );
  const simWall = spreadOf(rounds.scale.map((r) => r.simS / ((r.runWallMs + r.checkWallMs) / 1000)));
  const simCpu = spreadOf(rounds.scale.map((r) => r.simS / ((r.runCpuMs + r.checkCpuMs) / 1000)));
  const met = (x: number, t: number) => (x >= t ? "met" : "not met");
  reportTarget(
    `: raft-zk-scale (1000 clients) run + every checker ≥ ${SCALE_TARGET_SIM_S_PER_WALL_S} sim s / wall s: ${formatSpread(simWall, 2)} (${met(simWall.median, SCALE_TARGET_SIM_S_PER_WALL_S)}); ${formatSpread(simCpu, 2)} sim s / CPU s; load ${load()}`,
  );
  reportTarget(
    `: events / s at 1000 clients ≥ ${SCALE_TARGET_EVENTS_RATIO}× at 10: ${formatSpread(ratioWall, 2)} wall (${met(ratioWall.median, SCALE_TARGET_EVENTS_RATIO)}), ${formatSpread(ratioCpu, 2)} CPU`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
