import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { Scenario } from "../../scenarios/schema.js";
import { loadScenarioFile } from "../../scenarios/index.js";
import { runScenario } from "../runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { scenarioToJson } from "../explore/scenario-file.js";
import { checkContextFor } from "../check-context.js";
import { buildRecord, replayCommand, writeRunArtifacts } from "../artifacts.js";
import { writeJsonAtomic } from "./write.js";
import type { RunRecord } from "../../reports/types.js";
import type { TraceRecord } from "../../sim/simulation.js";

export interface WrittenCounterexample {
  file: string;
  runDir: string;
  scenario: Scenario;
  record: RunRecord;
  replay: string;
}

/**
 * Write a (shrunk) failing scenario as a scenario file plus its run directory. The
 * file is loaded back through the scenario validator and run again: what is written
 * must be a valid scenario that still fails (`stillFails`), or lockstep has a bug.
 * The scenario's name must be the one it was explored under: the run's random
 * streams are seeded from name and seed.
 */
export function writeCounterexample(
  dir: string,
  s: Scenario,
  seed: number,
  stillFails: (s: Scenario, seed: number) => boolean,
  /** `trace`: write the nodes' command trace with the run (its report draws it); `finding`: the audit finding it shows. */
  extra: { trace?: boolean; finding?: RunRecord["finding"] } = {},
): WrittenCounterexample {
  const file = join(dir, `${s.name}.json`);
  const first = runScenario(s, seed);
  const verdicts = runCheckers(first.history, checkContextFor(s));
  const withExpect: Scenario = {
    ...s,
    seed,
    expect: verdicts.outcome === "unknown" || verdicts.outcome === "not-challenged" ? s.expect : verdicts.outcome,
    file,
  };
  writeJsonAtomic(file, scenarioToJson(withExpect));

  const loaded = loadScenarioFile(file);
  const plain = (x: Scenario): unknown => JSON.parse(JSON.stringify(scenarioToJson(x)));
  if (!isDeepStrictEqual(plain(loaded), plain(withExpect))) {
    throw new Error(`lockstep bug: ${file} does not load back as the scenario that was written`);
  }
  if (!stillFails(loaded, seed)) throw new Error(`lockstep bug: ${file} with seed ${seed} no longer fails when loaded back`);
  const trace: TraceRecord[] | undefined = extra.trace ? [] : undefined;
  const run = runScenario(loaded, seed, {}, trace ? { traceSink: (r) => trace.push(r) } : {});
  const again = runCheckers(run.history, checkContextFor(loaded));
  if (again.outcome !== verdicts.outcome || again.safety !== verdicts.safety) {
    throw new Error(`lockstep bug: ${file} with seed ${seed} gave ${again.outcome} when reloaded, ${verdicts.outcome} before`);
  }
  const record: RunRecord = { ...buildRecord(loaded, seed, run, again), ...(extra.finding ? { finding: extra.finding } : {}) };
  const runDir = join(dir, "run");
  writeRunArtifacts(runDir, record, run.history, {}, undefined, trace);
  return { file, runDir, scenario: loaded, record, replay: replayCommand(loaded, seed) };
}
