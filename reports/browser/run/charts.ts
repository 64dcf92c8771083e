/**
 * The two charts under the timeline, which follow its zoom: each process's wall-clock
 * offset from true time (collapsed to one line when every clock is accurate), and the
 * acquire latency per grant on a log scale with p50, p99 and the target.
 */
import * as d3 from "d3";
import { fmtDur, fmtT, tickFormatFor } from "../format.js";
import { BAD, D, H, ML, MR, S, dpr, holdsBy, laneId, lanes, lockName, grantName, lowerBound, nHolds } from "./model.js";
import { showTip } from "./tooltip.js";
import { timelineOf } from "./fault-looks.js";
import { spreadLabels } from "./labels.js";

/** A label's line height: the target, p50 and p99 labels are kept this far apart vertically. */
const LABEL_GAP_PX = 13;

const C = D.clocks;
interface Series {
  l: number;
  id: string;
  off: number[];
  flat: boolean;
}
const clockSeries: Series[] = C.lanes.map((l, j) => ({ l, id: laneId(l), off: C.offsetsUs[j]!, flat: C.offsetsUs[j]!.every((v) => v === 0) }));
const moving = clockSeries.filter((s) => !s.flat);
/** Every clock at 0 (or no samples): the chart would be a flat line, so it is one sentence instead. */
export const clocksAllAccurate = moving.length === 0;

export function createCharts(): { draw: () => void } {
  const drawClocks = clocksAllAccurate ? collapseClocks() : clocksChart();
  const drawLatency = latencyChart();
  return {
    draw: () => {
      drawClocks();
      drawLatency();
    },
  };
}

function collapseClocks(): () => void {
  d3.select("#clocks")
    .attr("class", "collapsed")
    .text(
      clockSeries.length
        ? `Every process's wall clock kept true time in this run (offset 0 ms throughout, ${clockSeries.length} processes sampled).`
        : "No clock samples in this run.",
    );
  d3.select("#clocks-section").classed("collapsed", true);
  return () => {};
}

/** The x axis both charts share with the timeline's zoom, at height `y`. */
function drawTimeAxis(ax: d3.Selection<SVGGElement, unknown, HTMLElement, unknown>, y: number): void {
  const n = Math.max(2, Math.floor(S.W / 110));
  const tv = S.xz.ticks(n);
  const step = tv.length > 1 ? tv[1]! - tv[0]! : 1;
  ax.attr("transform", "translate(0," + y + ")").call(
    d3
      .axisBottom(S.xz)
      .ticks(n)
      .tickFormat(tickFormatFor(step) as (v: d3.NumberValue) => string)
      .tickSizeOuter(0),
  );
}

type Svg = d3.Selection<SVGSVGElement, unknown, HTMLElement, unknown>;
type Group = d3.Selection<SVGGElement, unknown, HTMLElement, unknown>;

const CW = { h: 190, mt: 10, mb: 24 };

function clocksChart(): () => void {
  const svg = d3.select<HTMLElement, unknown>("#clocks").append("svg");
  const clockG = svg.append("g");
  const ax = svg.append("g").attr("class", "axis");
  const ay = svg.append("g").attr("class", "axis");
  const clip = svg.append("defs").append("clipPath").attr("id", "clockclip").append("rect");
  clockG.attr("clip-path", "url(#clockclip)");
  const color = d3
    .scaleOrdinal<string, string>(["#d62728", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf"])
    .domain(moving.map((s) => s.id));
  clocksLegend(color);
  clocksTooltip(svg);
  return () => {
    const W = S.W;
    svg.attr("width", W + ML + MR).attr("height", CW.h);
    clip.attr("x", ML).attr("y", 0).attr("width", W).attr("height", CW.h);
    let ext = d3.extent([0, ...C.offsetsUs.flat()]).map((v) => (v ?? 0) / 1000) as [number, number];
    if (ext[0] === ext[1]) ext = [-1, 1];
    const yC = d3
      .scaleLinear()
      .domain(ext)
      .nice()
      .range([CW.h - CW.mb, CW.mt]);
    drawClockLines(clockG, yC, color);
    drawTimeAxis(ax, CW.h - CW.mb);
    ay.attr("transform", "translate(" + ML + ",0)").call(
      d3
        .axisLeft(yC)
        .ticks(5)
        .tickFormat((v) => v + " ms"),
    );
  };
}

/** A key per moving clock, and one line for the accurate rest. */
function clocksLegend(color: d3.ScaleOrdinal<string, string>): void {
  const leg = d3
    .select("#clocks-legend")
    .selectAll("span.key")
    .data(moving)
    .join((en) => {
      const s = en.append("span").attr("class", "key");
      s.append("i");
      s.append("b");
      return s;
    });
  leg.select("i").style("background", (d) => color(d.id));
  leg.select("b").text((d) => d.id);
  if (moving.length < clockSeries.length) {
    d3.select("#clocks-legend")
      .append("span")
      .attr("class", "key rest")
      .text("grey: the other " + (clockSeries.length - moving.length) + " processes, accurate");
  }
}

function clocksTooltip(svg: Svg): void {
  svg
    .on("mousemove", (ev: MouseEvent) => {
      const m = d3.pointer(ev);
      const t = S.xz.invert(m[0]);
      const k = Math.max(0, d3.bisectRight(C.t, t) - 1);
      if (!C.t.length || m[0] < ML) return showTip(null);
      const rows = moving.map((s): [string, string] => [s.id, fmtDur(s.off[k]!)]);
      showTip({ title: "wall-clock offsets at " + fmtT(C.t[k]!), rows }, ev);
    })
    .on("mouseleave", () => showTip(null));
}

/** Each process's offset as a step line (accurate ones grey), and the clock jumps as dashed verticals. */
function drawClockLines(clockG: Group, yC: d3.ScaleLinear<number, number>, color: d3.ScaleOrdinal<string, string>): void {
  const xz = S.xz;
  const line = d3
    .line<[number, number]>()
    .x((d) => xz(d[0]))
    .y((d) => yC(d[1] / 1000))
    .curve(d3.curveStepAfter);
  const series = clockSeries.map((s) => ({ s, pts: C.t.map((t, k): [number, number] => [t, s.off[k]!]) }));
  clockG
    .selectAll("path.clock")
    .data(series)
    .join("path")
    .attr("class", "clock")
    .attr("fill", "none")
    .attr("stroke-width", (d) => (d.s.flat ? 1 : 2))
    .attr("stroke", (d) => (d.s.flat ? "#b0b7bf" : color(d.s.id)))
    .attr("d", (d) => line(d.pts));
  const jumps = D.faults.filter((f) => timelineOf(f).onClockChart === true);
  clockG
    .selectAll("line.jump")
    .data(jumps)
    .join("line")
    .attr("class", "jump")
    .attr("x1", (f) => xz(f.s))
    .attr("x2", (f) => xz(f.s))
    .attr("y1", CW.mt)
    .attr("y2", CW.h - CW.mb)
    .attr("stroke", "#8e44ad")
    .attr("stroke-dasharray", "4,3");
}

const LW = { h: 190, mt: 10, mb: 24 };

/** Imported grants stamped before their invoke: their wait is the importer's 1 µs, not a latency, so not drawn. */
const clamped = new Set(D.latency.clamped);

/** Acquire latency (ms) of hold q, never below the log scale's floor. */
const latencyMsOf = (q: number): number => Math.max(0.1, (H.s[q]! - H.w[q]!) / 1000);

function latencyChart(): () => void {
  const wrap = d3.select<HTMLElement, unknown>("#latency");
  const canvas = wrap.append("canvas").attr("class", "layer");
  const svg = wrap.append("svg").attr("class", "layer overlay");
  const lctx = (canvas.node() as HTMLCanvasElement).getContext("2d")!;
  const ax = svg.append("g").attr("class", "axis");
  const ay = svg.append("g").attr("class", "axis");
  const lines = svg.append("g");
  let maxUs = 0;
  for (let q = 0; q < nHolds; q++) if (!clamped.has(q)) maxUs = Math.max(maxUs, H.s[q]! - H.w[q]!);
  // The tooltip reads the scale the last draw made.
  const y = { L: d3.scaleLog().domain([0.1, 1]) };
  latencyTooltip(svg, () => y.L);
  return () => {
    const W = S.W;
    const fullW = W + ML + MR;
    wrap.style("height", LW.h + "px");
    svg.attr("width", fullW).attr("height", LW.h);
    canvas
      .attr("width", Math.round(fullW * dpr))
      .attr("height", Math.round(LW.h * dpr))
      .style("width", fullW + "px")
      .style("height", LW.h + "px");
    const hi = Math.max(D.latency.targetMs * 2, (maxUs / 1000) * 1.3);
    y.L = d3
      .scaleLog()
      .domain([0.1, hi])
      .range([LW.h - LW.mb, LW.mt])
      .clamp(true);
    drawLatencyDots(lctx, y.L, fullW);
    drawLatencyLines(lines, y.L);
    drawTimeAxis(ax, LW.h - LW.mb);
    ay.attr("transform", "translate(" + ML + ",0)").call(
      d3
        .axisLeft(y.L)
        .ticks(5, "~g")
        .tickFormat((v) => (/^10*$|^0\.0*1$/.test(String(v)) ? d3.format("~g")(v as number) + " ms" : "")),
    );
  };
}

/** The grant nearest the pointer (within 6 px vertically, 3 px of time), with its latency. */
function latencyTooltip(svg: Svg, yL: () => d3.ScaleLogarithmic<number, number>): void {
  svg
    .on("mousemove", (ev: MouseEvent) => {
      const m = d3.pointer(ev);
      const t = S.xz.invert(m[0]);
      const dom = S.xz.domain() as [number, number];
      const tol = ((dom[1] - dom[0]) / S.W) * 3;
      let best = -1;
      let bd = Infinity;
      for (let l = 0; l < lanes.length; l++) {
        const idx = holdsBy[l]!;
        for (let p = lowerBound(H.s, idx, t - tol); p < idx.length && H.s[idx[p]!]! <= t + tol; p++) {
          const i = idx[p]!;
          if (clamped.has(i)) continue;
          const dy = Math.abs(yL()(latencyMsOf(i)) - m[1]);
          if (dy < bd && dy < 6) {
            bd = dy;
            best = i;
          }
        }
      }
      if (best < 0) return showTip(null);
      showTip(
        {
          title: laneId(H.lane[best]!) + " acquired " + lockName(H.lock[best]!) + " in " + fmtDur(H.s[best]! - H.w[best]!),
          rows: [
            ["invoked", fmtT(H.w[best]!)],
            ["granted", fmtT(H.s[best]!)],
            ["grant", grantName(best)],
          ],
          bad: H.bad[best] === 1,
        },
        ev,
      );
    })
    .on("mouseleave", () => showTip(null));
}

/** One dot per grant in view, one per pixel: red for a bad grant, orange past the target. */
function drawLatencyDots(lctx: CanvasRenderingContext2D, yL: d3.ScaleLogarithmic<number, number>, fullW: number): void {
  const W = S.W;
  const [a, b] = S.xz.domain() as [number, number];
  const k = W / (b - a);
  lctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  lctx.clearRect(0, 0, fullW, LW.h);
  const seen = new Uint8Array((W + 2) * (LW.h + 2));
  for (let i = 0; i < nHolds; i++) {
    const t = H.s[i]!;
    if (t < a || t > b || clamped.has(i)) continue;
    const px = Math.round((t - a) * k);
    const py = Math.round(yL(latencyMsOf(i)));
    const key = px * (LW.h + 2) + py;
    if (seen[key]) continue;
    seen[key] = 1;
    lctx.fillStyle = H.bad[i] ? BAD : (t - H.w[i]!) / 1000 > D.latency.targetMs ? "rgba(224,123,0,0.85)" : "rgba(59,111,182,0.75)";
    lctx.fillRect(ML + px - 1.5, py - 1.5, 3, 3);
  }
}

/** The target, p50 and p99 as labelled horizontal lines. */
function drawLatencyLines(lines: Group, yL: d3.ScaleLogarithmic<number, number>): void {
  const W = S.W;
  const ql: Array<{ v: number; label: string; cls: string }> = [{ v: D.latency.targetMs, label: "target " + D.latency.targetMs + " ms", cls: "target" }];
  if (D.latency.p50Ms !== null) ql.push({ v: D.latency.p50Ms, label: "p50 " + fmtDur(D.latency.p50Ms * 1000), cls: "p50" });
  if (D.latency.p99Ms !== null) ql.push({ v: D.latency.p99Ms, label: "p99 " + fmtDur(D.latency.p99Ms * 1000), cls: "p99" });
  const lg = lines
    .selectAll("g.ql")
    .data(ql)
    .join((en) => {
      const g = en.append("g").attr("class", (d) => "ql " + d.cls);
      g.append("line");
      g.append("text");
      return g;
    });
  lg.select("line")
    .attr("x1", ML)
    .attr("x2", ML + W)
    .attr("y1", (d) => yL(Math.max(0.1, d.v)))
    .attr("y2", (d) => yL(Math.max(0.1, d.v)));
  const labelY = spreadLabels(
    ql.map((d) => yL(Math.max(0.1, d.v)) + (d.cls === "p50" ? 12 : -4)),
    LABEL_GAP_PX,
    LW.mt + 10,
    LW.h - LW.mb - 2,
  );
  lg.select("text")
    .attr("x", ML + W - 4)
    .attr("y", (_, i) => labelY[i]!)
    .attr("text-anchor", "end")
    .text((d) => d.label);
}
