import type { FaultStepFields } from "./def.js";
import type { FaultKind } from "./index.js";

export { FAULT_KINDS, type FaultKind } from "./index.js";
export type { FaultTrigger } from "./def.js";

/** One step of a scenario's fault schedule (plain JSON data); its kind names an entry of faults/index.ts. */
export interface FaultStep extends FaultStepFields {
  kind: FaultKind;
}
