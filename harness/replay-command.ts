import type { Scenario } from "../scenarios/schema.js";

/** A word as a POSIX shell reads it back unchanged. */
export function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that replays a run (what every failing output prints). Its own module so that
 * what needs only this line (the sweep, the API) does not load the HTML report renderer
 * that harness/artifacts.ts brings in. A shipped scenario is named; a file is given by its
 * path, with `--lock <adapter>` when it was put on a lock library, so the rerun runs the
 * same adapter (a shipped name keeps its `name@adapter` form, which says the same).
 */
export function replayCommand(scenario: Scenario, seed: number): string {
  const shipped = scenario.file.startsWith("scenarios/");
  const arg = shipped ? scenario.name : scenario.file;
  const lock = !shipped && scenario.lock !== undefined ? ` --lock ${shellWord(scenario.lock)}` : "";
  return `npx lockstep run ${shellWord(arg)}${lock} --seed ${seed}`;
}
