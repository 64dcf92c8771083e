import type { Scenario } from "../scenarios/schema.js";
import { InputError } from "../sim/errors.js";
import { planRealRun } from "./nemesis.js";

/**
 * Whether real mode can run a scenario (every fault has a real mechanism here): the audit
 * chooses a cause's counterexample among those, so `--confirm-real` has one to replay.
 */
export function realRunnable(s: Scenario): boolean {
  try {
    planRealRun(s, 1, s.seed);
    return true;
  } catch (e) {
    if (e instanceof InputError) return false;
    throw e;
  }
}
