import type { Scenario } from "../../scenarios/schema.js";
import { runSeed, writeSeedReport, type SeedResult } from "./run-seed.js";
import type { Work } from "./protocol.js";

/**
 * One unit of sweep work, the same wherever it runs (a worker thread or the main
 * thread): a chunk of seeds gives their results; a report job gives none.
 */
export async function doWork(scenario: Scenario, work: Work): Promise<SeedResult[]> {
  if (work.type === "run") return work.seeds.map((s) => runSeed(scenario, s));
  await writeSeedReport(scenario, work.seed, work.dir);
  return [];
}
