import type { FaultKindDef, FaultSemantics, FaultSpace, FastCheck, FaultStepFields, RealMechanism, RealSupport } from "./def.js";
import type { Arbitrary } from "fast-check";
import { pause } from "./pause.js";
import { crash } from "./crash.js";
import { restart } from "./restart.js";
import { clockJump } from "./clock-jump.js";
import { clockDrift } from "./clock-drift.js";
import { partition } from "./partition.js";
import { cut } from "./cut.js";
import { isolate } from "./isolate.js";
import { heal } from "./heal.js";
import { delay } from "./delay.js";
import { loss } from "./loss.js";
import { duplicate } from "./duplicate.js";

/** Every fault kind, one line each; the order is the order docs and errors list them in. */
export const FAULT_DEFS = [pause, crash, restart, clockJump, clockDrift, partition, cut, isolate, heal, delay, loss, duplicate] as const;

export type FaultKind = (typeof FAULT_DEFS)[number]["name"];
export const FAULT_KINDS: readonly FaultKind[] = FAULT_DEFS.map((d) => d.name);

const BY_NAME = new Map<string, FaultKindDef>(FAULT_DEFS.map((d) => [d.name, d]));

/** The kind's entry, or undefined for a kind the registry lacks (an imported history's "kill"). */
export const findFaultDef = (kind: string): FaultKindDef | undefined => BY_NAME.get(kind);

export function faultDef(kind: string): FaultKindDef {
  const def = BY_NAME.get(kind);
  if (!def) throw new Error(`unknown fault kind "${kind}"; expected one of: ${FAULT_KINDS.join(", ")}`);
  return def;
}

/** Fields any step may have, around each kind's own (in the order an unknown-field error lists them). */
const COMMON_FIELDS = ["kind", "atMs", "on", "delayMs", "target", "durationMs"];
export const FAULT_FIELDS: readonly string[] = [...new Set([...COMMON_FIELDS, ...FAULT_DEFS.flatMap((d) => d.fields), "note"])];

export const realSupportOf = (kind: string): RealSupport => faultDef(kind).real;

/** The real-mode mechanism a kind declares, or undefined where real mode refuses it. */
export function mechanismOf(kind: string): RealMechanism | undefined {
  const real = realSupportOf(kind);
  return "mechanism" in real ? real.mechanism : undefined;
}

/** A kind whose real mechanism kills its target's process (and perhaps restarts it). */
export function killsProcess(kind: string): boolean {
  const m = mechanismOf(kind);
  return m === "sigkill" || m === "sigkill-restart";
}

/** What an imported history's nemesis op of no kind of ours is taken for: a window that may hold up progress. */
const FOREIGN: FaultSemantics = { instant: false, holdsUpProgress: true };

/** What a kind means to checkers and reports (faults/def.ts); a foreign op's default otherwise. */
export const semanticsOf = (kind: string): FaultSemantics => BY_NAME.get(kind)?.semantics ?? FOREIGN;

/** Explore's choices over a space, in rank order (the order fixes what a seed draws). */
export function exploreChoices(fc: FastCheck, s: FaultSpace): Array<Arbitrary<FaultStepFields>> {
  const ranked = FAULT_DEFS.flatMap((d) => (d.explore ? [d.explore] : [])).sort((a, b) => a.rank - b.rank);
  return ranked.flatMap((e) => {
    const arb = e.arb(fc, s);
    return arb ? [arb] : [];
  });
}
