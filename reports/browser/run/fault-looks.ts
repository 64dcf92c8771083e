/**
 * How the page draws a fault: as its kind's definition says (faults/<kind>.ts `looks`
 * and `semantics`), never by testing the kind's name. An imported history's nemesis op
 * of no kind of ours is a span labelled with its name and note.
 */
import { findFaultDef } from "../../../faults/index.js";
import type { FaultTimeline } from "../../../faults/def.js";
import type { FaultMark as Fault } from "../../run-view-types.js";
import { fmtDur } from "../format.js";

const FOREIGN: FaultTimeline = { at: "span" };

export const timelineOf = (f: Fault): FaultTimeline => findFaultDef(f.kind)?.looks.timeline ?? FOREIGN;

/** A fault whose target stays down to the run's end when nothing brings it back (a crash never restarted). */
export const downToEnd = (f: Fault): boolean => findFaultDef(f.kind)?.semantics.losesVolatileState === true;

/** Its short label: the kind's own, else its kind and note. */
export function faultLabelOf(f: Fault, laneId: (l: number) => string): string {
  const label = timelineOf(f).label;
  if (!label) return f.note ? f.kind + " " + f.note : f.kind;
  const nums = f as unknown as Record<string, unknown>;
  return label({
    who: f.lanes.map(laneId).join(", "),
    durUs: f.e !== null ? f.e - f.s : null,
    ...(f.groups ? { groups: f.groups } : {}),
    ...(f.oneWay ? { oneWay: true } : {}),
    num: (field) => (typeof nums[field] === "number" ? (nums[field] as number) : undefined),
    fmtDur,
  });
}
