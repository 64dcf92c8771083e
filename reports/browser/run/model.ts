/**
 * The run page's data and what every part of it shares: the RunView from #run-data,
 * per-lane indexes sorted by time, the lane layout, colours, and the time scale the
 * zoom moves (`S.xz`). Every string from the data reaches the DOM through d3's
 * .text() or canvas fillText, never as markup.
 */
import * as d3 from "d3";
import type { RunView } from "../../run-view-types.js";
import { unpackView } from "../unpack.js";
import { downToEnd, timelineOf } from "./fault-looks.js";
import { showTimesAsPositions } from "../format.js";

export type AnySel = d3.Selection<any, any, any, any>;

export const D: RunView = unpackView(JSON.parse(document.getElementById("run-data")!.textContent!) as RunView);
// Before anything is drawn or said: a history without times speaks in positions.
showTimesAsPositions(D.timeIsOrder === true);
export const lanes = D.lanes;
export const H = D.holds;
export const A = D.attempts;
export const E = D.errors;
export const WR = D.writes;
export const RO = D.regOps ?? { lane: [], s: [], e: [], txt: [], out: [] };
export const nHolds = H.s.length;

export const LANE_H = lanes.length <= 6 ? 38 : lanes.length <= 12 ? 30 : 24;
export const NET_ROW = 20;
export const MR = 14;
export const MT = 26;
export const MB = 24;
// The left margin fits the longest lane name (12px bold: about 7.4px a character).
export const ML = Math.min(220, Math.max(80, 18 + 7.4 * Math.max(7, ...lanes.map((l) => l.id.length))));
export const LOCK_COLORS = ["#3b6fb6", "#2a9d8f", "#7b5ea7", "#c17d11", "#4a7c59", "#5d6d7e", "#a05195", "#1f7a8c"];
export const BAD = "#d62728";
/** The part of a hold after the client's own clock said its lease lapsed: magenta, apart from the pause hatch's yellow. */
export const LAPSED = "#d81b8c";
export const dpr = window.devicePixelRatio || 1;

/** What the page drew, for the browser test (window.lockstepReport). */
export const stats = {
  holdsTotal: nHolds,
  holdsDrawn: 0,
  waitsDrawn: 0,
  attemptsDrawn: 0,
  writesDrawn: 0,
  violationsDrawn: 0,
  faultsDrawn: 0,
  notesDrawn: 0,
  densityDrawn: 0,
  regOpsDrawn: 0,
  /** Lanes drawn as a density strip at the current zoom (too many holds for bars). */
  denseLanes: 0,
  notesByKind: {} as Record<string, number>,
  drawMs: 0,
  redraws: 0,
  domainUs: [0, 0] as [number, number],
};
(window as unknown as { lockstepReport: typeof stats }).lockstepReport = stats;

export const lockName = (i: number): string => D.locks[i] ?? "";
export const laneId = (i: number): string => (i >= 0 && lanes[i] ? lanes[i]!.id : "?");
export function grantName(i: number): string {
  const g = H.g[i]!;
  return g >= 0 ? laneId(H.lane[i]!) + "#" + g : D.strings[-g - 1]!;
}
export const str = (i: number): string => (i >= 0 ? D.strings[i]! : "");
export const lockColor = (i: number): string => LOCK_COLORS[i % LOCK_COLORS.length]!;
export const HOLD_END_WORDS = ["released it", "its own clock said the lease had expired", "it crashed", "the history ended"];
export const RELEASE_WORDS = ["released", "key already gone (the lease had expired)", "release failed or unknown", "no release"];

// ---------- per-lane indexes ----------
function byLane(laneArr: number[], n: number, timeArr: number[]): number[][] {
  const out: number[][] = lanes.map(() => []);
  for (let i = 0; i < n; i++) if (laneArr[i]! >= 0) out[laneArr[i]!]!.push(i);
  for (const l of out) l.sort((a, b) => timeArr[a]! - timeArr[b]!);
  return out;
}
export const holdsBy = byLane(H.lane, nHolds, H.s);
/** Per lane, the running max of hold ends in start order: holds before lowerBound(a) end before a. */
export const holdMaxE = holdsBy.map((l) => {
  let m = -Infinity;
  return l.map((i) => (m = Math.max(m, H.e[i]!)));
});
export const holdMaxWait = holdsBy.map((l) => l.reduce((m, i) => Math.max(m, H.s[i]! - H.w[i]!), 0));
export const attemptsBy = byLane(A.lane, A.s.length, A.s);
export const errorsBy = byLane(E.lane, E.t.length, E.t);
export const regOpsBy = byLane(RO.lane, RO.s.length, RO.s);
export const notesBy = byLane(
  D.notes.map((n) => n.lane),
  D.notes.length,
  D.notes.map((n) => n.t),
);
export const writeOrder = WR.t.map((_, i) => i).sort((a, b) => WR.t[a]! - WR.t[b]!);
export const resourceLane = lanes.findIndex((l) => l.kind === "resource");

/** First position p with arr[idx[p]] >= v. */
export function lowerBound(arr: number[], idx: number[], v: number): number {
  let lo = 0;
  let hi = idx.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (arr[idx[m]!]! < v) lo = m + 1;
    else hi = m;
  }
  return lo;
}
export function lowerBoundPlain(arr: number[], v: number): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (arr[m]! < v) lo = m + 1;
    else hi = m;
  }
  return lo;
}

// ---------- layout ----------
/** A fault drawn in the network rows above the lanes (its kind's `looks` say so). */
export const onNetRow = (f: Fault): boolean => timelineOf(f).at === "network";
export type Fault = RunView["faults"][number] & { row?: number };
export const netFaults: Fault[] = D.faults.filter(onNetRow);
export const hasNet = netFaults.length > 0;
// Network faults that overlap in time get rows of their own in the network lane.
const netRowEnds: number[] = [];
netFaults
  .slice()
  .sort((p, q) => p.s - q.s)
  .forEach((f) => {
    const e = f.e === null ? f.s : f.e;
    let r = 0;
    while (r < netRowEnds.length && netRowEnds[r]! > f.s) r++;
    netRowEnds[r] = Math.max(e, f.s + 1);
    f.row = r;
  });
export const NET_H = Math.max(1, netRowEnds.length) * NET_ROW + 4;
export const top0 = MT + (hasNet ? NET_H : 0);
export const laneY = (l: number): number => top0 + l * LANE_H;
export const plotH = (hasNet ? NET_H : 0) + lanes.length * LANE_H;
export const totalH = MT + plotH + MB;

export const faultEnd = (f: Fault): number => (f.e === null ? (downToEnd(f) ? D.endUs : f.s) : f.e);

/**
 * Where the axis ends: the last thing drawn, plus a little room, not the scenario's
 * nominal duration when nothing happened in its tail.
 */
/** Where the axis starts: 0 for a run; an imported history's first event (its clock is its own). */
export const dataStartUs = Math.max(0, D.startUs ?? 0);
export const dataEndUs = (() => {
  let m = 0;
  for (const v of H.e) m = Math.max(m, v);
  for (const v of A.e) m = Math.max(m, v);
  for (const v of E.t) m = Math.max(m, v);
  for (const v of WR.t) m = Math.max(m, v);
  for (const f of D.faults) m = Math.max(m, f.e ?? f.s);
  for (const n of D.notes) m = Math.max(m, n.t);
  for (let i = 0; i < RO.s.length; i++) m = Math.max(m, RO.e[i]! >= 0 ? RO.e[i]! : RO.s[i]!);
  if (m <= 0) return Math.max(1, D.endUs);
  return Math.min(Math.max(1, D.endUs), Math.ceil(m + (m - dataStartUs) * 0.02) + 1);
})();

/** The zoomable time scale (`xz`) over the base one (`x`), and the plot's width: set by layout() and the zoom. */
export const S = {
  W: 600,
  x: d3.scaleLinear(),
  xz: d3.scaleLinear(),
};
