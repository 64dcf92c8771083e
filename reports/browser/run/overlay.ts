/**
 * The timeline's SVG marks: lane backgrounds and labels, fault bands and markers,
 * the lock servers' own notes (key set / expired, failover, session or lease expiry),
 * violations and the axes. Few enough to be DOM elements with tooltips.
 */
import * as d3 from "d3";
import { fmtDur, fmtT, tickFormatFor } from "../format.js";
import { BAD, D, H, LANE_H, ML, MT, NET_H, NET_ROW, S, faultEnd, hasNet, laneId, laneY, lanes, plotH, resourceLane, stats, type Fault } from "./model.js";
import { faultLabel, faultTip, noteTip, type Tip } from "./tooltip.js";
import type { Layers } from "./layers.js";
import { timelineOf } from "./fault-looks.js";
import { drawRoles } from "./roles.js";

const SIDE_COLORS = ["#dbe8ff", "#ffe3d6", "#e2f5dc", "#f3e0f7"];
/** A server note's mark: its colour and shape (path around the point x, y = lane top). */
const NOTE_MARKS: Record<string, { color: string; path: (x: number, y: number) => string; stroke?: boolean }> = {
  expiry: { color: "#c0392b", path: (x, y) => `M${x - 6},${y + 4}h12l-6,10z` }, // a key/session/lease gone: a falling triangle
  set: { color: "#2e7d32", path: (x, y) => `M${x},${y + 5}l3.5,3.5l-3.5,3.5l-3.5,-3.5z` }, // a small diamond
  decision: { color: "#8e44ad", path: (x, y) => `M${x},${y + 3}l6,6l-6,6l-6,-6z` }, // someone decided an expiry
  role: { color: "#1f5fa8", path: (x, y) => `M${x},${y + 3}l6,10h-12z` }, // leader, failover, promotion
  other: { color: "#6c757d", path: (x, y) => `M${x - 3},${y + 6}h6v6h-6z` },
  // another client's key deleted: a cross
  delete: { color: "#d62728", path: (x, y) => `M${x - 5},${y + 4}l10,10m0,-10l-10,10`, stroke: true },
  // another client's key renewed or overwritten: a red diamond, hollow (the key lives on, as someone else's)
  foreign: { color: "#d62728", path: (x, y) => `M${x},${y + 3}l6,6l-6,6l-6,-6z`, stroke: true },
};

const MARK_WEIGHT: Record<string, number> = { other: 0, set: 1, role: 2, expiry: 3, decision: 4, foreign: 5, delete: 5 };

export function drawLanes(L: Layers): void {
  const W = S.W;
  const rows = lanes.map((l, i) => ({ l, i }));
  L.bgLanes
    .selectAll("rect.lane")
    .data(rows)
    .join("rect")
    .attr("class", "lane")
    .attr("x", ML)
    .attr("width", W)
    .attr("y", (d) => laneY(d.i))
    .attr("height", LANE_H)
    .attr("fill", (d) => (d.l.kind === "client" ? (d.i % 2 ? "#f7f8fa" : "#ffffff") : d.l.kind === "resource" ? "#f1f7f1" : "#f3f1f8"));
  if (hasNet)
    L.bgLanes
      .selectAll("rect.net")
      .data([0])
      .join("rect")
      .attr("class", "net")
      .attr("x", ML)
      .attr("width", W)
      .attr("y", MT)
      .attr("height", NET_H)
      .attr("fill", "#eef3fb");
  const lab = L.labels
    .selectAll("g.lab")
    .data(rows)
    .join((en) => {
      const g = en.append("g").attr("class", "lab");
      g.append("text").attr("class", "lane-name");
      g.append("text").attr("class", "lane-kind");
      return g;
    });
  lab
    .select("text.lane-name")
    .attr("x", ML - 8)
    .attr("y", (d) => laneY(d.i) + LANE_H / 2 - 1)
    .attr("text-anchor", "end")
    .text((d) => d.l.id);
  lab
    .select("text.lane-kind")
    .attr("x", ML - 8)
    .attr("y", (d) => laneY(d.i) + LANE_H / 2 + 9)
    .attr("text-anchor", "end")
    .text((d) => (d.l.kind === "resource" ? "resource" : d.l.kind === "server" ? "lock server" : d.l.kind === "client" ? "client" : ""));
  L.labels
    .selectAll("text.net-name")
    .data(hasNet ? [0] : [])
    .join("text")
    .attr("class", "lane-name net-name")
    .attr("x", ML - 8)
    .attr("y", MT + NET_H / 2 + 4)
    .attr("text-anchor", "end")
    .text("network");
}

interface Band {
  f: Fault;
  fi: number;
  l: number;
  s: number;
  e: number;
  cls: string;
  band: "down" | "clock" | "sides";
  side?: number;
}
interface FaultMarkD {
  f: Fault;
  fi: number;
  type: "net" | "point" | "span";
  y: number;
  s: number;
  e: number;
  l?: number;
  tip?: () => Tip;
}

export function drawSvg(L: Layers, drawHighlight: () => void): void {
  const [a, b] = S.xz.domain() as [number, number];
  drawFaultBands(L, a, b);
  drawFaultMarks(L, a, b);
  drawRoles(L.roleG, a, b);
  drawNotes(L, a, b);
  drawNoteDensity(L, a, b);
  drawViolations(L, a, b);
  drawAxes(L, a, b);
  drawHighlight();
}

/** Background bands on process lanes: crashes, drift, and a partition's sides. */
function drawFaultBands(L: Layers, a: number, b: number): void {
  const W = S.W;
  const xz = S.xz;
  const X = (t: number) => xz(t);
  const vis = (s: number, e: number) => e >= a && s <= b;
  // background bands on process lanes: crashes, drift, and the partition's sides
  const bands: Band[] = [];
  D.faults.forEach((f: Fault, fi) => {
    const e = faultEnd(f);
    const band = timelineOf(f).band;
    if (band === "down" || band === "clock") {
      for (const l of f.lanes) bands.push({ f, fi, l, s: f.s, e, cls: f.kind, band });
    } else if (band === "sides" && f.groups) {
      f.groups.forEach((g, gi) => {
        for (const id of g) {
          const l = lanes.findIndex((x) => x.id === id);
          if (l >= 0) bands.push({ f, fi, l, s: f.s, e, cls: "side", band, side: gi });
        }
      });
    }
  });
  L.bgFaults
    .selectAll("rect.band")
    .data(bands.filter((d) => vis(d.s, d.e)))
    .join("rect")
    .attr("class", (d) => "band " + d.cls)
    .attr("x", (d) => Math.max(ML - 2, X(d.s)))
    .attr("width", (d) => Math.max(2, Math.min(ML + W + 2, X(d.e)) - Math.max(ML - 2, X(d.s))))
    .attr("y", (d) => laneY(d.l) + (d.cls === "side" ? 0 : 1))
    .attr("height", (d) => (d.cls === "side" ? LANE_H : LANE_H - 2))
    .attr("fill", (d) => (d.band === "down" ? "#c9c9c9" : d.band === "sides" ? SIDE_COLORS[d.side! % SIDE_COLORS.length]! : "#e8f1ff"));
}

/** The fault marks in view [a, b]: one per network fault, one per lane for a point or span fault. */
function faultMarksIn(a: number, b: number): FaultMarkD[] {
  const fm: FaultMarkD[] = [];
  D.faults.forEach((f: Fault, fi) => {
    const e = faultEnd(f);
    if (!(e >= a && f.s <= b)) return;
    const at = timelineOf(f).at;
    if (at === "network") fm.push({ f, fi, type: "net", y: MT + 3 + (f.row ?? 0) * NET_ROW, s: f.s, e });
    else if (at === "point") for (const l of f.lanes) fm.push({ f, fi, type: "point", y: laneY(l), s: f.s, e: f.s, l });
    else for (const l of f.lanes) fm.push({ f, fi, type: "span", y: laneY(l), s: f.s, e, l });
  });
  return fm;
}

type FaultMarkG = d3.Selection<SVGGElement, FaultMarkD, null, undefined>;

/** A network fault: a bar in its row, the label inside when it fits, else just after it in dark text. */
function drawNetFaultMark(g: FaultMarkG, d: FaultMarkD, x0: number, x1: number): void {
  const W = S.W;
  const w = Math.max(3, x1 - x0);
  g.select("path")
    .attr("d", "M" + x0 + "," + d.y + "h" + w + "v" + (NET_ROW - 3) + "h" + -w + "z")
    .attr("fill", timelineOf(d.f).style === "healing" ? "#2e7d32" : "#3b6fb6")
    .attr("opacity", 0.85);
  const nl = faultLabel(d.f);
  const vis0 = Math.max(x0, ML);
  const vis1 = Math.min(x0 + w, ML + W);
  const fits = vis1 - vis0 > nl.length * 6.6 + 8;
  g.select("text")
    .attr("x", fits ? vis0 + 4 : vis1 + 4)
    .attr("y", d.y + NET_ROW / 2 + 2)
    .attr("fill", fits ? "#fff" : null)
    .attr("class", fits ? "fault-label" : "fault-label dark net-out")
    .text(nl);
}

/** A point fault on its lane: a triangle or a diamond, its label beside it. */
function drawPointFaultMark(g: FaultMarkG, d: FaultMarkD, x0: number): void {
  const cy = d.y + LANE_H / 2;
  const triangle = timelineOf(d.f).style === "triangle";
  g.select("path")
    .attr("d", triangle ? "M" + x0 + "," + (d.y + 3) + "l6,10l-12,0z" : "M" + x0 + "," + (cy - 7) + "l7,7l-7,7l-7,-7z")
    .attr("fill", triangle ? "#2e7d32" : "#8e44ad")
    .attr("stroke", "#fff");
  g.select("text")
    .attr("x", x0 + 9)
    .attr("y", cy + 4)
    .attr("class", "fault-label dark")
    .text(faultLabel(d.f));
}

/** A span fault on its lane: a dashed box (hatched or not), its label inside when it fits. */
function drawSpanFaultMark(g: FaultMarkG, d: FaultMarkD, x0: number, x1: number): void {
  const W = S.W;
  const sx0 = Math.max(ML - 2, x0);
  const sw = Math.max(3, Math.min(ML + W + 2, x1) - sx0);
  g.select("path")
    .attr("d", "M" + sx0 + "," + (d.y + 1) + "h" + sw + "v" + (LANE_H - 2) + "h" + -sw + "z")
    .attr("fill", timelineOf(d.f).style === "hatched" ? "url(#hatch-ov)" : "none")
    .attr("stroke", timelineOf(d.f).style === "hatched" ? "#c99a00" : "#777")
    .attr("stroke-dasharray", "3,2");
  const lw = Math.min(ML + W, x1) - Math.max(ML, x0);
  const sl = faultLabel(d.f);
  const inside = lw > sl.length * 6.6 + 10;
  g.select("text")
    .attr("x", inside ? (Math.max(x0, ML) + Math.min(x1, ML + W)) / 2 : Math.min(x1, ML + W) + 4)
    .attr("text-anchor", inside ? "middle" : "start")
    .attr("y", LANE_H >= 30 ? d.y + LANE_H - 8 : d.y + LANE_H / 2 + 4)
    .attr("class", "fault-label dark")
    .text(sl);
}

/** Fault labels and markers in the overlay: network faults in their rows, the rest on their lanes. */
function drawFaultMarks(L: Layers, a: number, b: number): void {
  const xz = S.xz;
  const X = (t: number) => xz(t);
  const fm = faultMarksIn(a, b);
  stats.faultsDrawn = fm.length;
  const fg = L.faultG
    .selectAll("g.fault")
    .data(fm, (d: any) => d.fi + ":" + d.type + ":" + (d.l === undefined ? "" : d.l))
    .join((en) => {
      const g = en.append("g").attr("class", (d: FaultMarkD) => "fault mark fault-" + d.f.kind);
      g.append("path");
      g.append("text");
      return g;
    });
  fg.each(function (d: FaultMarkD) {
    const g = d3.select(this) as unknown as FaultMarkG;
    const x0 = X(d.s);
    const x1 = X(d.e);
    d.tip = () => faultTip(d.f);
    g.attr("data-ref", "fault:" + d.fi);
    if (d.type === "net") drawNetFaultMark(g, d, x0, x1);
    else if (d.type === "point") drawPointFaultMark(g, d, x0);
    else drawSpanFaultMark(g, d, x0, x1);
  });
}

function drawAxes(L: Layers, a: number, b: number): void {
  const W = S.W;
  const xz = S.xz;
  // axes
  const ticks = Math.max(2, Math.floor(W / 110));
  const tv = xz.ticks(ticks);
  const step = tv.length > 1 ? tv[1]! - tv[0]! : b - a;
  const fmt = tickFormatFor(step) as (v: d3.NumberValue) => string;
  L.axTop.attr("transform", "translate(0," + MT + ")").call(d3.axisTop(xz).ticks(ticks).tickFormat(fmt).tickSizeOuter(0).tickSize(4));
  L.axBot
    .attr("transform", "translate(0," + (MT + plotH) + ")")
    .call(d3.axisBottom(xz).ticks(ticks).tickFormat(fmt).tickSizeOuter(0).tickSize(-plotH))
    .selectAll(".tick line")
    .attr("stroke", "#000")
    .attr("stroke-opacity", 0.06);
}

interface NoteD {
  i: number;
  label: boolean;
  tip?: () => Tip;
}

/**
 * Labels where they fit: the notes the story tells (a foreign delete, an expiry) first,
 * then the rest in time order, none running into another on its lane.
 */
function placeNoteLabels(visible: NoteD[]): void {
  const xz = S.xz;
  const taken = new Map<number, Array<[number, number]>>();
  const weight = (i: number): number => (D.notes[i]!.key ? 10 : 0) + (MARK_WEIGHT[D.notes[i]!.mark] ?? 0);
  const byWeight = visible.slice().sort((p, q) => weight(q.i) - weight(p.i));
  for (const d of byWeight) {
    const n = D.notes[d.i]!;
    const x = xz(n.t);
    const w = n.label.length * 6.2 + 12;
    // A role change is labelled by its band (roles.ts); its mark and tooltip stay.
    if (n.f === "raft-role" || x + w >= ML + S.W + 40) continue;
    const spans = taken.get(n.lane) ?? [];
    if (spans.length > 60 || spans.some(([s0, e0]) => x < e0 + 6 && x + w > s0 - 6)) continue;
    d.label = true;
    spans.push([x, x + w]);
    taken.set(n.lane, spans);
  }
}

/** Server notes on their lanes: a shape per kind; a label only where it does not run into the previous one. */
function drawNotes(L: Layers, a: number, b: number): void {
  const xz = S.xz;
  const roleLanes = new Set((D.roles ?? []).map((r) => r.lane));
  const visible: NoteD[] = [];
  D.notes.forEach((n, i) => {
    if (n.t < a || n.t > b) return;
    visible.push({ i, label: false });
  });
  visible.sort((p, q) => D.notes[p.i]!.t - D.notes[q.i]!.t);
  placeNoteLabels(visible);
  stats.notesDrawn = visible.length;
  // Drawn in order of weight, so where marks meet the decision and the expiry are on top.
  const drawOrder = visible
    .slice()
    .sort((p, q) => (MARK_WEIGHT[D.notes[p.i]!.mark] ?? 0) - (MARK_WEIGHT[D.notes[q.i]!.mark] ?? 0) || D.notes[p.i]!.t - D.notes[q.i]!.t);
  const byKind: Record<string, number> = {};
  for (const d of visible) byKind[D.notes[d.i]!.f] = (byKind[D.notes[d.i]!.f] ?? 0) + 1;
  stats.notesByKind = byKind;
  L.noteG
    .selectAll("g.note")
    .data(drawOrder, (d: any) => d.i)
    .join((en) => {
      const g = en.append("g");
      g.append("path");
      g.append("text").attr("class", "fault-label dark note-label");
      return g;
    })
    .each(function (d: NoteD) {
      const n = D.notes[d.i]!;
      const m = NOTE_MARKS[n.mark] ?? NOTE_MARKS.other!;
      const g = d3.select(this);
      const nx = xz(n.t);
      const ny = laneY(n.lane);
      d.tip = () => noteTip(d.i);
      g.attr("class", "note mark note-" + n.mark)
        .attr("data-ref", "note:" + d.i)
        .attr("data-f", n.f)
        .attr("data-lane", laneId(n.lane));
      g.select("path")
        .attr("d", m.path(nx, ny))
        .attr("fill", m.stroke ? "none" : m.color)
        .attr("stroke", m.stroke ? m.color : "#fff")
        .attr("stroke-width", m.stroke ? 2.5 : 0.8);
      g.select("text")
        .attr("x", nx + 8)
        // On a lane with role bands along its bottom, the label goes in the upper half.
        .attr("y", roleLanes.has(n.lane) ? ny + 12 : ny + LANE_H - 7)
        .attr("fill", m.color)
        .text(d.label ? n.label : "");
    })
    .order();
}

interface DensityD {
  i: number;
  tip?: () => Tip;
}

/** Notes of a dense kind that were counted, not drawn: a grey strip along the lane's top with the count. */
function drawNoteDensity(L: Layers, a: number, b: number): void {
  const xz = S.xz;
  const all = D.noteDensity ?? [];
  const shown: DensityD[] = [];
  all.forEach((d, i) => {
    if (d.e >= a && d.s <= b) shown.push({ i });
  });
  stats.densityDrawn = shown.length;
  L.noteG
    .selectAll("g.note-density")
    .data(shown, (d: any) => d.i)
    .join((en) => {
      const g = en.append("g").attr("class", "note-density mark");
      g.append("rect");
      g.append("text").attr("class", "fault-label dark");
      return g;
    })
    .each(function (d: DensityD) {
      const n = all[d.i]!;
      const x0 = Math.max(ML, xz(n.s));
      const w = Math.max(2, Math.min(ML + S.W, xz(n.e)) - x0 - 1);
      const y = laneY(n.lane) + 2;
      d.tip = () => ({
        title: `${n.n} more ${n.f} notes`,
        rows: [
          ["from", fmtT(n.s)],
          ["to", fmtT(n.e)],
        ],
        text: `Too many ${n.f} notes to draw each: a few are drawn in every part of the run, and these ${n.n} on ${laneId(n.lane)} are counted here.`,
      });
      const g = d3.select(this);
      g.attr("data-f", n.f).attr("data-lane", laneId(n.lane)).attr("data-count", n.n);
      g.select("rect").attr("x", x0).attr("y", y).attr("width", w).attr("height", 3).attr("fill", "#999").attr("fill-opacity", 0.6);
      const label = "+" + n.n;
      g.select("text")
        .attr("x", x0 + 1)
        .attr("y", y + 11)
        .attr("fill", "#777")
        .text(w >= label.length * 6 + 4 ? label : "");
    });
}

interface ViolD {
  v: (typeof D.violations)[number];
  i: number;
  label?: boolean;
  /** Where its word goes (set while its band is drawn). */
  lx?: number;
  ly?: number;
  anchor?: string;
  tip?: () => Tip;
}

function violationTip(v: ViolD["v"]): Tip {
  return {
    title: "violation: " + v.checker,
    rows: [
      ["lock", v.lock],
      ["from", fmtT(v.s)],
      ["to", fmtT(v.e)],
      ["for", fmtDur(v.e - v.s)],
    ],
    text: v.sentence,
    bad: true,
  };
}

function drawViolations(L: Layers, a: number, b: number): void {
  const xz = S.xz;
  const X = (t: number) => xz(t);
  const vv: ViolD[] = D.violations.map((v, i) => ({ v, i })).filter((d) => d.v.e >= a && d.v.s <= b);
  // Many overlaps close together (one long stale hold against many short ones) get one flag and one word.
  vv.sort((p, q) => p.v.s - q.v.s);
  let lastFlagX = -Infinity;
  for (const d of vv) {
    const cx = X(d.v.s);
    d.label = cx - lastFlagX > 80;
    if (d.label) lastFlagX = cx;
  }
  stats.violationsDrawn = vv.length;
  L.violG
    .selectAll("g.violation")
    .data(vv, (d: any) => d.i)
    .join((en) => {
      const g = en.append("g").attr("class", "violation mark");
      g.append("rect").attr("class", "vband");
      g.append("path").attr("class", "vflag");
      return g;
    })
    .each(function (d: ViolD) {
      const g = d3.select(this);
      const v = d.v;
      let ls = v.holds.map((h) => H.lane[h]!);
      if (v.writes.length && resourceLane >= 0) ls.push(resourceLane);
      if (!ls.length) ls = [0];
      const y0 = laneY(Math.min(...ls));
      const y1 = laneY(Math.max(...ls)) + LANE_H;
      let x0 = X(v.s);
      const w = Math.max(4, X(v.e) - x0);
      if (w === 4) x0 -= 2;
      d.tip = () => violationTip(v);
      g.attr("data-ref", "violation:" + d.i);
      g.select("rect.vband")
        .attr("x", x0)
        .attr("width", w)
        .attr("y", y0)
        .attr("height", y1 - y0)
        .attr("fill", BAD)
        .attr("fill-opacity", 0.22)
        .attr("stroke", BAD)
        .attr("stroke-width", 1.5);
      // The flag sits on the band's top edge and the word under the band, clear of the network lane's labels.
      g.select("path.vflag")
        .attr("d", d.label ? "M" + (x0 + w / 2) + "," + (y0 + 9) + "l-6,-10h12z" : null)
        .attr("fill", BAD);
      // Near the plot's ends the word is anchored inside it, not cut by the clip.
      const mid = x0 + w / 2;
      d.anchor = mid > ML + S.W - 30 ? "end" : mid < ML + 30 ? "start" : "middle";
      d.lx = d.anchor === "end" ? Math.min(mid + 4, ML + S.W) : d.anchor === "start" ? Math.max(mid - 4, ML) : mid;
      d.ly = Math.min(y1 + 12, MT + plotH - 2);
    });
  drawViolationLabels(L, vv);
}

/** The word under each flagged band, in its own layer above the servers' notes (an expiry mark there would cover it). */
function drawViolationLabels(L: Layers, vv: readonly ViolD[]): void {
  L.vlabelG
    .selectAll("text.vlabel")
    .data(
      vv.filter((d) => d.label),
      (d: any) => d.i,
    )
    .join("text")
    .attr("class", "vlabel")
    .attr("x", (d: ViolD) => d.lx!)
    .attr("y", (d: ViolD) => d.ly!)
    .attr("text-anchor", (d: ViolD) => d.anchor!)
    .text("violation");
}
