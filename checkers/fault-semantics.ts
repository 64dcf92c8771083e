/**
 * How the checkers read a nemesis event: by what its kind declares (faults/<kind>.ts
 * `semantics`), never by the kind's name. An imported history's op of no kind of ours is
 * a window that may hold up progress; Jepsen's :kill crashes its target.
 */
import { semanticsOf } from "../faults/index.js";

/** An imported Jepsen history's nemesis ops that crash a process (no kind of ours). */
const FOREIGN_CRASHES: ReadonlySet<string> = new Set(["kill"]);

/** Its target loses its volatile state (a crash, a Jepsen :kill): its holds and waits end. */
export const losesState = (kind: string): boolean => semanticsOf(kind).losesVolatileState === true || FOREIGN_CRASHES.has(kind);

/** It keeps no one waiting and ends nothing (a clock's step or rate change): it acts at its instant on whom it reaches. */
export function movesCalmOnly(kind: string): boolean {
  const s = semanticsOf(kind);
  return !s.holdsUpProgress && s.ends === undefined;
}

/** It ends every fault in force (a heal). */
export const endsAll = (kind: string): boolean => semanticsOf(kind).ends === "all";

/** It brings back what lost its state (a restart). */
export const endsLostState = (kind: string): boolean => semanticsOf(kind).ends === "lost-state";

/** The faults in force, counted per kind, after a nemesis event of `kind` in `phase` (changed in place). */
export function applyFault(active: Map<string, number>, kind: string, phase: unknown): void {
  if (endsAll(kind)) active.clear();
  else if (endsLostState(kind)) {
    for (const [k, n] of active) if (losesState(k)) active.set(k, Math.max(0, n - 1));
  } else if (phase === "end") active.set(kind, Math.max(0, (active.get(kind) ?? 0) - 1));
  else active.set(kind, (active.get(kind) ?? 0) + 1);
}
