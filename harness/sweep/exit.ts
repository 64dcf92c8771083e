import { EXIT } from "../exit-codes.js";
import type { SweepSummary } from "./summary.js";

/** A sweep's exit code, by the same rule as one run's (cli/commands/run.ts), over all its runs. */
export function sweepExitCode(s: SweepSummary, okIfExpected: boolean): number {
  if (okIfExpected) return s.expected.matched === s.runs ? EXIT.ok : EXIT.unexpected;
  if (s.safety.violations > 0) return EXIT.safetyViolation;
  if (s.liveness.violations > 0) return EXIT.livenessViolation;
  if (s.safety.unknown > 0 || s.liveness.unknown > 0) return EXIT.unknown;
  return EXIT.ok;
}
