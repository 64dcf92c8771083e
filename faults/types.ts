import type { FaultStepFields } from "./def.js";
import type { FaultKind } from "./index.js";

export { FAULT_KINDS, type FaultKind } from "./index.js";
export type { FaultTrigger } from "./def.js";

/** One step of a scenario's fault schedule (plain JSON data); its kind names an entry of faults/index.ts. */
export interface FaultStep extends FaultStepFields {
  kind: FaultKind;
}

/** Fault targets named by role, resolved when the step fires: "@leader" is the Raft leader at that moment. */
export const ROLE_TARGETS: readonly string[] = ["@leader"];

export function isRoleTarget(target: string): boolean {
  return target.startsWith("@");
}
