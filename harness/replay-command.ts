import type { Scenario } from "../scenarios/schema.js";

/**
 * The command that replays a run (what every failing output prints). Its own module so that
 * what needs only this line (the sweep, the API) does not load the HTML report renderer
 * that harness/artifacts.ts brings in.
 */
export function replayCommand(scenario: Scenario, seed: number): string {
  const arg = scenario.file.startsWith("scenarios/") ? scenario.name : scenario.file;
  return `npx lockstep run ${arg} --seed ${seed}`;
}
