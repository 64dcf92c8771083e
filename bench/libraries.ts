/**
 * The cost of running real library code: simulated seconds per wall second of real lock
 * libraries (redlock 4.2.0, the redlock v5 line, redis-semaphore's RedlockMutex) beside
 * lockstep's own redlock model, on the same scenarios, in alternating rounds
 * (bench/rounds.ts). The slowdown is model ÷ library, round by round.
 *
 * Run: npm run bench (all benches) or node --expose-gc dist/bench/libraries.js
 */
import { pathToFileURL } from "node:url";
import { loadScenario } from "../scenarios/index.js";
import { measureScenario } from "./kernel.js";
import { alternatingRounds, formatSpread, ratioSpread, spreadOf } from "./rounds.js";
import { reportTarget } from "./targets.js";

const SCENARIOS = ["redlock-baseline", "redlock-gc-pause"];
const LIBRARIES = ["redlock-v4", "redlock-v5", "redis-semaphore-redlock"];
const SLOWDOWN_TARGET = 3;

export async function main(rounds = 5, wallMsMin = 400): Promise<void> {
  console.log(
    `== libraries: real lock-library code in the simulator vs the redlock model (sim s per wall s; median [min–max] of ${rounds} alternating rounds) ==`,
  );
  let worst = 0;
  for (const name of SCENARIOS) {
    const variants = ["model", ...LIBRARIES];
    const scenarios = Object.fromEntries(variants.map((v) => [v, loadScenario(v === "model" ? name : `${name}@${v}`)]));
    const measures = Object.fromEntries(variants.map((v) => [v, () => measureScenario(scenarios[v]!, wallMsMin, 2).simSPerWallS]));
    const figures = alternatingRounds(measures, rounds);
    console.log(`${name}: model ${formatSpread(spreadOf(figures.model!))}`);
    for (const lib of LIBRARIES) {
      const slowdown = ratioSpread(figures.model!, figures[lib]!);
      worst = Math.max(worst, slowdown.median);
      console.log(`  ${lib.padEnd(24)} ${formatSpread(spreadOf(figures[lib]!)).padEnd(22)} model ÷ library ${formatSpread(slowdown, 1)}×`);
    }
  }
  reportTarget(
    `: real libraries ≤ ${SLOWDOWN_TARGET}× the model's cost: worst median slowdown ${worst.toFixed(1)}× (${worst <= SLOWDOWN_TARGET ? "met" : "not met"})`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
