/**
 * The cost of running real library code: simulated seconds per wall second of the real
 * redlock@4.2.0 and the v5 line beside lockstep's own redlock model, on the same
 * scenarios, measured in one run, printed as ratios (never judged).
 *
 * Run: npm run bench (all benches) or npx tsx bench/libraries.ts
 */
import { pathToFileURL } from "node:url";
import { loadScenario } from "../scenarios/index.js";
import { measureScenario } from "./kernel.js";

const SCENARIOS = ["redlock-baseline", "redlock-gc-pause", "redlock-clock-jump"];
const LIBRARIES = ["redlock-v4", "redlock-v5"];

export async function main(wallMsMin = 1500): Promise<void> {
  console.log("== libraries: real lock-library code in the simulator vs the redlock model (sim s per wall s) ==");
  console.log("scenario              model sim s/wall s   " + LIBRARIES.map((l) => `${l} sim s/wall s  model/${l}`).join("   "));
  for (const name of SCENARIOS) {
    const model = measureScenario(loadScenario(name), wallMsMin, 3);
    const cells = LIBRARIES.map((lib) => {
      const m = measureScenario(loadScenario(`${name}@${lib}`), wallMsMin, 3);
      const ratio = m.simSPerWallS > 0 ? (model.simSPerWallS / m.simSPerWallS).toFixed(1) : "∞";
      return `${String(m.simSPerWallS).padStart(19)}  ${ratio.padStart(10)}x`;
    });
    console.log(`${name.padEnd(22)}${String(model.simSPerWallS).padStart(19)}   ${cells.join("   ")}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
