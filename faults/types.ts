import type { EventType } from "../sim/history.js";

export const FAULT_KINDS = [
  "pause",
  "crash",
  "restart",
  "clock-jump",
  "clock-drift",
  "partition",
  "cut",
  "isolate",
  "heal",
  "delay",
  "loss",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** When a fault step fires: at a true time, or when a history event happens. */
export interface FaultTrigger {
  atMs?: number;
  /** Fire when `process` records the nth (1-based) event with this f and type. */
  on?: { process: string; f: string; type: EventType; nth: number };
  /** Extra delay after the trigger, ms. */
  delayMs: number;
}

export interface FaultStep extends FaultTrigger {
  kind: FaultKind;
  /** The process acted on (pause, crash, restart, clock-*, isolate). */
  target?: string;
  /** How long it lasts; at the end the fault is undone (resume, restart, heal, drift back). */
  durationMs?: number;
  deltaMs?: number;
  driftPpm?: number;
  /** partition: groups of process ids; links between groups are cut (unlisted processes keep all links). */
  groups?: string[][];
  /** partition: cut only from earlier groups to later ones (asymmetric). */
  oneWay?: boolean;
  /** cut/delay/loss: explicit directed links [from, to]. */
  links?: Array<[string, string]>;
  extraMs?: number;
  lossRate?: number;
  /** Short note shown in the report next to the step. */
  note?: string;
}
