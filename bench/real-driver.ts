/**
 * A lock driver against the in-process adapter, on real servers: the wall time of one whole
 * real run of an attack (holder-pause-before-write, ×1) with redis-py's Lock through the line
 * protocol (examples/python-redis-py/driver.py) beside the same run on the Node reference
 * recipe as an adapter (setnx-reference, loaded in lockstep's client processes), from the
 * run's start to its end: the redis-server, the client processes, the drivers' start-up
 * (CPython and redis-py's import), the story, the teardown. Rounds alternate (python, node,
 * python, …) so the machine's load falls on both alike; the ratio is taken round by round,
 * printed as its median with the smallest and largest. Nothing passes or fails; the target
 * (issue 49) is a ratio of at most 1.5.
 *
 * Needs the real servers and python3-redis (bash scripts/ensure-real-servers.sh).
 * Run: npm run bench:real-driver (builds first), or node dist/bench/real-driver.js after npm run build
 */
import { loadavg } from "node:os";
import { attackByName, type LockUnderTest } from "../attacks/index.js";
import { parseScenario } from "../scenarios/schema.js";
import { planReal } from "../real/plan.js";
import { recordRealRun } from "../real/record.js";
import { runRealOnce } from "../real/run.js";
import { packageRoot } from "../sim/paths.js";
import { formatSpread, ratioSpread, spreadOf } from "./rounds.js";
import { reportTarget } from "./targets.js";

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const ATTACK = "holder-pause-before-write";

const python: LockUnderTest = {
  design: "library",
  designOptions: { lockCmd: "python3 examples/python-redis-py/driver.py", lockCmdCwd: packageRoot(), nodes: 1 },
  label: "redis-py Lock (driver)",
};
const node: LockUnderTest = { design: "library", designOptions: { adapter: "setnx-reference", nodes: 1 }, label: "setnx-reference (adapter)" };

/** One whole real run of the attack on `lock`: its wall ms, and its outcome (so a broken leg is seen). */
async function oneRun(lock: LockUnderTest, round: number): Promise<{ ms: number; outcome: string }> {
  const compiled = attackByName(ATTACK)!.compile(lock);
  if (!compiled.ok) throw new Error(compiled.refusal);
  const plan = planReal(parseScenario(JSON.parse(JSON.stringify(compiled.scenario)), `<bench ${ATTACK}>`), 1);
  const started = performance.now();
  const out = await runRealOnce(plan, { run: round, runs: ROUNDS, seed: round });
  const ms = performance.now() - started;
  return { ms, outcome: recordRealRun(plan, out).verdicts.outcome };
}

async function main(): Promise<void> {
  const ms: Record<"python" | "node", number[]> = { python: [], node: [] };
  const outcomes = new Set<string>();
  const loads: number[] = [loadavg()[0] ?? 0];
  for (let r = 1; r <= ROUNDS; r++) {
    for (const [name, lock] of [
      ["python", python],
      ["node", node],
    ] as const) {
      const run = await oneRun(lock, r);
      ms[name].push(run.ms);
      outcomes.add(`${name} ${run.outcome}`);
    }
    loads.push(loadavg()[0] ?? 0);
  }
  const ratio = ratioSpread(ms.python, ms.node);
  console.log(`real-driver: one real run of ${ATTACK} (×1), ${ROUNDS} alternating rounds, 1-minute load ${formatSpread(spreadOf(loads), 1)}`);
  console.log(`  python3 redis-py Lock, line protocol:   ${formatSpread(spreadOf(ms.python))} ms`);
  console.log(`  Node setnx-reference, in-process:       ${formatSpread(spreadOf(ms.node))} ms`);
  console.log(`  outcomes: ${[...outcomes].sort().join(", ")}`);
  reportTarget(`: real run with a Python lock driver / with the Node adapter ≤ 1.5: ${formatSpread(ratio, 2)}`);
}

await main();
