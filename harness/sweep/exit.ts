import { EXIT } from "../exit-codes.js";
import type { SweepSummary } from "./summary.js";

/**
 * A sweep's exit code, by the same rule as one run's (cli/commands/run.ts), over all its
 * runs: a verdict first; else 8 when some run was not challenged (with --ok-if-expected
 * too, when every other run matched): those seeds showed nothing either way.
 */
export function sweepExitCode(s: SweepSummary, okIfExpected: boolean): number {
  const unchallenged = s.outcomes["not-challenged"] ?? 0;
  if (okIfExpected) {
    if (s.expected.matched + unchallenged < s.runs) return EXIT.unexpected;
    return unchallenged > 0 ? EXIT.notChallenged : EXIT.ok;
  }
  if (s.safety.violations > 0) return EXIT.safetyViolation;
  if (s.liveness.violations > 0) return EXIT.livenessViolation;
  if (s.safety.unknown > 0 || s.liveness.unknown > 0) return EXIT.unknown;
  return unchallenged > 0 ? EXIT.notChallenged : EXIT.ok;
}
