import type { WrittenCounterexample } from "../harness/sweep/counterexample.js";
import { describeStep } from "../harness/explore/scenario-file.js";

/** The terminal lines every counterexample ends with: faults, outcome, seed, replay. */
export function formatCounterexample(w: WrittenCounterexample): string[] {
  const failed = w.record.verdicts.results.filter((r) => r.valid === false).map((r) => r.checker);
  return [
    `${w.scenario.faults.length} fault step(s):`,
    ...(w.scenario.faults.length > 0 ? w.scenario.faults.map((f) => `  ${describeStep(f)}`) : ["  (none: the workload alone violates safety)"]),
    `outcome: ${w.record.verdicts.outcome}${failed.length > 0 ? ` — failed: ${failed.join(", ")}` : ""}`,
    `seed: ${w.record.seed}`,
    `replay: ${w.replay}`,
    `wrote ${w.file} and ${w.runDir}/ (history.jsonl, results.json, report.html)`,
  ];
}
