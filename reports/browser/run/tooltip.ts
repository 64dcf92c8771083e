/**
 * Tooltips: what each mark says when hovered, and which canvas mark is under the
 * pointer (the SVG marks carry their own tip function in their datum).
 */
import * as d3 from "d3";
import { fmtDur, fmtT } from "../format.js";
import { faultLabelOf } from "./fault-looks.js";
import {
  A,
  D,
  E,
  H,
  HOLD_END_WORDS,
  LANE_H,
  onNetRow,
  RELEASE_WORDS,
  RO,
  regOpsBy,
  S,
  WR,
  attemptsBy,
  errorsBy,
  faultEnd,
  grantName,
  holdMaxE,
  holdsBy,
  laneId,
  lanes,
  lockName,
  lowerBound,
  lowerBoundPlain,
  resourceLane,
  str,
  top0,
  writeOrder,
  type Fault,
} from "./model.js";

export interface Tip {
  title: string;
  rows: Array<[string, string]>;
  text?: string;
  also?: string;
  foot?: string;
  bad?: boolean;
}

export function holdTip(i: number): Tip {
  const rows: Array<[string, string]> = [["grant", grantName(i)]];
  rows.push(["fencing token", H.tok[i]! >= 0 ? String(H.tok[i]) : "none (this design issues no token)"]);
  rows.push(["held", fmtT(H.s[i]!) + " → " + fmtT(H.e[i]!) + "  (" + fmtDur(H.e[i]! - H.s[i]!) + ")"]);
  rows.push(["waited for it", fmtDur(H.s[i]! - H.w[i]!) + " (acquire invoked at " + fmtT(H.w[i]!) + ")"]);
  if (H.val[i]! >= 0) rows.push(["lease it believed it had", fmtDur(H.val[i]! * 1000)]);
  if (H.lap[i]! >= 0) rows.push(["its clock said the lease lapsed at", fmtT(H.lap[i]!)]);
  rows.push(["hold ended because", HOLD_END_WORDS[H.by[i]!] ?? "?"]);
  rows.push(["release", RELEASE_WORDS[H.rel[i]!] ?? "?"]);
  return {
    title: laneId(H.lane[i]!) + " holds " + lockName(H.lock[i]!),
    rows,
    text: H.st[i] ? "It went on reading or writing after its own clock said the lease had lapsed (magenta edge)." : "",
    bad: H.bad[i] === 1,
    foot: H.bad[i] ? "part of a violation" : "",
  };
}
export function waitTip(i: number): Tip {
  return {
    title: laneId(H.lane[i]!) + " waits for " + lockName(H.lock[i]!),
    rows: [
      ["acquire invoked", fmtT(H.w[i]!)],
      ["granted", fmtT(H.s[i]!)],
      ["waited", fmtDur(H.s[i]! - H.w[i]!)],
    ],
  };
}
export function attemptTip(i: number): Tip {
  return {
    title: laneId(A.lane[i]!) + "'s acquire of " + lockName(A.lock[i]!) + (A.out[i] === 0 ? " failed" : " ended unknown"),
    rows: [
      ["invoked", fmtT(A.s[i]!)],
      ["ended", fmtT(A.e[i]!)],
      ["after", fmtDur(A.e[i]! - A.s[i]!)],
      ["reason", str(A.why[i]!) || "—"],
    ],
  };
}
export function regOpTip(i: number): Tip {
  const words = str(RO.txt[i]!);
  return {
    title: laneId(RO.lane[i]!) + " " + words,
    rows: [
      ["invoked", fmtT(RO.s[i]!)],
      ["returned", RO.e[i]! >= 0 ? fmtT(RO.e[i]!) : "never (no reply in the history)"],
      ["took", RO.e[i]! >= 0 ? fmtDur(RO.e[i]! - RO.s[i]!) : "—"],
    ],
  };
}
export function errorTip(i: number): Tip {
  return {
    title: laneId(E.lane[i]!) + "'s " + str(E.f[i]!) + " " + (E.out[i] === 0 ? "failed" : "outcome unknown"),
    rows: [
      ["lock", lockName(E.lock[i]!)],
      ["at", fmtT(E.t[i]!)],
      ["reason", str(E.why[i]!) || "—"],
    ],
  };
}
export function writeTip(i: number): Tip {
  const rows: Array<[string, string]> = [
    ["writer", laneId(WR.cl[i]!)],
    ["lock", lockName(WR.lock[i]!)],
    ["at", fmtT(WR.t[i]!)],
    ["counter written", String(WR.counter[i])],
    ["fencing token", WR.tok[i]! >= 0 ? String(WR.tok[i]) : "none"],
  ];
  if (WR.hold[i]! >= 0) rows.push(["under grant", grantName(WR.hold[i]!)]);
  if (WR.why[i]! >= 0) rows.push(["reason", str(WR.why[i]!)]);
  return {
    title: "the resource " + (WR.ok[i] ? "accepted" : "rejected") + " a write",
    rows,
    bad: WR.bad[i] === 1,
    foot: WR.bad[i] ? "a checker names this write in a violation" : "",
  };
}
export function noteTip(i: number): Tip {
  const n = D.notes[i]!;
  return { title: n.title, rows: [["at (true time)", fmtT(n.t)] as [string, string]].concat(n.rows), text: n.sentence };
}

export function faultLabel(f: Fault): string {
  return faultLabelOf(f, laneId);
}
export function faultTip(f: Fault): Tip {
  const rows: Array<[string, string]> = [
    ["kind", f.kind],
    ["from", fmtT(f.s)],
  ];
  if (f.e !== null) rows.push(["until", fmtT(f.e) + " (" + fmtDur(f.e - f.s) + ")"]);
  if (f.lanes.length) rows.push(["acts on", f.lanes.map(laneId).join(", ")]);
  if (f.groups) f.groups.forEach((g, gi) => rows.push(["side " + String.fromCharCode(65 + gi), g.join(", ")]));
  if (f.deltaMs !== undefined) rows.push(["jump", (f.deltaMs >= 0 ? "+" : "−") + fmtDur(Math.abs(f.deltaMs) * 1000)]);
  if (f.driftPpm !== undefined) rows.push(["drift", f.driftPpm + " ppm"]);
  if (f.extraMs !== undefined) rows.push(["extra delay", fmtDur(f.extraMs * 1000)]);
  if (f.lossRate !== undefined) rows.push(["loss rate", String(f.lossRate)]);
  if (f.step >= 0) rows.push(["scenario step", "faults[" + f.step + "]"]);
  return { title: faultLabel(f), rows, text: f.note ?? "" };
}

const tipEl = d3.select<HTMLElement, unknown>("#tooltip");
export function showTip(tip: Tip | null, ev?: MouseEvent): void {
  if (!tip || !ev) {
    tipEl.style("display", "none");
    return;
  }
  tipEl.selectAll("*").remove();
  tipEl.classed("bad", !!tip.bad);
  tipEl.append("div").attr("class", "tt-title").text(tip.title);
  const tb = tipEl.append("table");
  for (const r of tip.rows) {
    const tr = tb.append("tr");
    tr.append("th").text(r[0]);
    tr.append("td").text(r[1]);
  }
  if (tip.text) tipEl.append("div").attr("class", "tt-text").text(tip.text);
  if (tip.also) tipEl.append("div").attr("class", "tt-also").text(tip.also);
  if (tip.foot) tipEl.append("div").attr("class", "tt-foot").text(tip.foot);
  tipEl.style("display", "block");
  const node = tipEl.node()!;
  const tw = node.offsetWidth;
  const th = node.offsetHeight;
  let px = ev.clientX + 14;
  let py = ev.clientY + 14;
  if (px + tw > window.innerWidth - 8) px = ev.clientX - tw - 14;
  if (py + th > window.innerHeight - 8) py = ev.clientY - th - 14;
  tipEl.style("left", px + "px").style("top", py + "px");
}

/** What is under the pointer on the canvas: { tip, ref } or null. */
export function canvasHit(mx: number, my: number): { tip: Tip; ref: string } | null {
  const l = Math.floor((my - top0) / LANE_H);
  if (l < 0 || l >= lanes.length) return null;
  const dom = S.xz.domain() as [number, number];
  const t = S.xz.invert(mx);
  const tol = ((dom[1] - dom[0]) / S.W) * 4;
  let best = -1;
  let bestD = Infinity;
  if (l === resourceLane) {
    for (let p = lowerBound(WR.t, writeOrder, t - tol); p < writeOrder.length && WR.t[writeOrder[p]!]! <= t + tol; p++) {
      const i = writeOrder[p]!;
      const dd = Math.abs(WR.t[i]! - t);
      if (dd < bestD) {
        bestD = dd;
        best = i;
      }
    }
    if (best >= 0) return { tip: writeTip(best), ref: "write:" + best };
  }
  for (const i of errorsBy[l]!) if (Math.abs(E.t[i]! - t) <= tol) return { tip: errorTip(i), ref: "error:" + i };
  for (const i of regOpsBy[l]!) {
    if (RO.s[i]! - tol <= t && (RO.e[i]! < 0 || t <= RO.e[i]! + tol)) return { tip: regOpTip(i), ref: "regop:" + i };
  }
  for (const i of attemptsBy[l]!) if (A.s[i]! - tol <= t && t <= A.e[i]! + tol) return { tip: attemptTip(i), ref: "attempt:" + i };
  const idx = holdsBy[l]!;
  if (idx.length) {
    const lo = lowerBoundPlain(holdMaxE[l]!, t - tol);
    for (let p = lo; p < idx.length && H.w[idx[p]!]! <= t + tol; p++) {
      const i = idx[p]!;
      if (H.s[i]! - tol <= t && t <= H.e[i]! + tol) {
        const d0 = t < H.s[i]! ? H.s[i]! - t : t > H.e[i]! ? t - H.e[i]! : 0;
        if (d0 < bestD) {
          bestD = d0;
          best = i;
        }
      }
    }
    if (best >= 0) return { tip: holdTip(best), ref: "hold:" + best };
    for (let p = lo; p < idx.length && H.w[idx[p]!]! <= t + tol; p++) {
      const i = idx[p]!;
      if (H.w[i]! <= t && t <= H.s[i]!) return { tip: waitTip(i), ref: "wait:" + i };
    }
  }
  // a fault band on this lane
  for (let fi = 0; fi < D.faults.length; fi++) {
    const f = D.faults[fi]!;
    if (f.lanes.indexOf(l) >= 0 && f.s <= t && t <= faultEnd(f) && !onNetRow(f)) return { tip: faultTip(f), ref: "fault:" + fi };
  }
  return null;
}
