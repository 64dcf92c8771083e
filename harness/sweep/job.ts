import type { Scenario } from "../../scenarios/schema.js";
import { writeSeedReport, type SeedResult } from "./run-seed.js";
import type { Work } from "./protocol.js";

/**
 * One report job, the same wherever it runs (a worker thread or the main thread): the
 * failing seed's run directory written; it gives no results.
 */
export async function doWork(scenario: Scenario, work: Work): Promise<SeedResult[]> {
  await writeSeedReport(scenario, work.seed, work.dir);
  return [];
}
