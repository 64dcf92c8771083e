/**
 * The run report's page script (bundled by esbuild into the page, with the parts of
 * d3 it uses): lays out the timeline, wires zoom, tooltips, the story's steps and the
 * "show on the timeline" links, and draws. After the first draw it sets
 * <body data-drawn="1"> and window.lockstepReport (model.ts: what it drew, the visible
 * time domain): the browser test reads these.
 */
import * as d3 from "d3";
import { fmtDur, fmtT } from "../format.js";
import {
  A,
  D,
  E,
  H,
  LANE_H,
  ML,
  MR,
  MT,
  onNetRow,
  NET_ROW,
  S,
  WR,
  dataEndUs,
  dataStartUs,
  faultEnd,
  laneY,
  plotH,
  resourceLane,
  stats,
  totalH,
  dpr,
} from "./model.js";
import { createLayers } from "./layers.js";
import { drawCanvas } from "./canvas.js";
import { drawLanes, drawSvg } from "./overlay.js";
import { canvasHit, showTip, type Tip } from "./tooltip.js";
import { createCharts } from "./charts.js";

const L = createLayers();
const charts = createCharts();

const zoom = d3.zoom<SVGSVGElement, unknown>().on("zoom", (ev: d3.D3ZoomEvent<SVGSVGElement, unknown>) => {
  S.xz = ev.transform.rescaleX(S.x);
  scheduleRedraw();
});

function layout(): void {
  // The drawn layers are as wide as the last layout: measured without them, the frame is as
  // wide as the page allows now (a window made narrower, a phone turned upright).
  document.body.classList.add("measuring");
  const box = (L.root.node() as HTMLElement).getBoundingClientRect();
  document.body.classList.remove("measuring");
  // A phone's width (420 px) leaves ~250 px to plot: the plot fits its frame down to 180 px,
  // below that (long lane names) the frame scrolls sideways (#timeline's overflow-x).
  S.W = Math.max(180, Math.floor(box.width) - ML - MR);
  const W = S.W;
  const fullW = W + ML + MR;
  for (const s of [L.bg, L.ov]) s.attr("width", fullW).attr("height", totalH);
  L.canvas
    .attr("width", Math.round(fullW * dpr))
    .attr("height", Math.round(totalH * dpr))
    .style("width", fullW + "px")
    .style("height", totalH + "px");
  L.root.style("height", totalH + "px");
  L.ov
    .select("#plotclip rect")
    .attr("x", ML)
    .attr("y", MT - 14)
    .attr("width", W)
    .attr("height", plotH + 14);
  L.bg.select("#plotclip2 rect").attr("x", ML).attr("y", MT).attr("width", W).attr("height", plotH);
  L.hit.attr("x", ML).attr("y", MT).attr("width", W).attr("height", plotH);
  S.x = d3
    .scaleLinear()
    .domain([dataStartUs, dataEndUs])
    .range([ML, ML + W]);
  zoom
    .extent([
      [ML, 0],
      [ML + W, totalH],
    ])
    .translateExtent([
      [ML, 0],
      [ML + W, totalH],
    ])
    .scaleExtent([1, Math.max(1, (dataEndUs - dataStartUs) / 20)]);
  S.xz = d3.zoomTransform(L.ov.node() as SVGSVGElement).rescaleX(S.x);
  drawLanes(L);
}

L.ov
  .on("mousemove", (ev: MouseEvent) => {
    const target = ev.target as Element | null;
    const parent = target && target !== L.hit.node() ? (target.parentNode as Element | null) : null;
    const d = parent ? (d3.select(parent).datum() as { tip?: () => Tip; type?: string } | undefined) : undefined;
    const m = d3.pointer(ev, L.ov.node());
    const h = canvasHit(m[0], m[1]);
    if (d && typeof d.tip === "function") {
      // A pause or crash band lies over the marks of its lane: show the mark, and the band as context.
      if (d.type === "span" && h && h.ref.indexOf("fault:") !== 0) {
        const f = d.tip();
        showTip({ ...h.tip, also: "meanwhile: " + f.title + (f.text ? " — " + f.text : "") }, ev);
      } else showTip(d.tip(), ev);
      return;
    }
    showTip(h ? h.tip : null, ev);
  })
  .on("mouseleave", () => showTip(null))
  .on("click", (ev: MouseEvent) => {
    const m = d3.pointer(ev, L.ov.node());
    const el = (ev.target as Element | null)?.parentNode as Element | null;
    let ref = el && el.getAttribute ? el.getAttribute("data-ref") : null;
    if (!ref) ref = canvasHit(m[0], m[1])?.ref ?? null;
    if (ref) focusStepFor(ref);
  });

(L.ov as d3.Selection<SVGSVGElement, unknown, null, undefined>).call(zoom).on("dblclick.zoom", null);
let pending = false;
function scheduleRedraw(): void {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    redraw();
  });
}
const ovZ = L.ov as d3.Selection<SVGSVGElement, unknown, null, undefined>;
export function zoomTo(s: number, e: number): void {
  const full = dataEndUs - dataStartUs;
  // zoom.transform does not apply the translate extent: keep the window inside the run.
  const span = Math.min(full, Math.max(20, e - s));
  s = Math.max(dataStartUs, Math.min(s, dataEndUs - span));
  const k = Math.min(full / 20, Math.max(1, full / span));
  const tx = ML - S.x(s) * k;
  ovZ.transition().duration(450).call(zoom.transform, d3.zoomIdentity.translate(tx, 0).scale(k));
}
d3.select("#zoom-in").on("click", () =>
  ovZ
    .transition()
    .duration(250)
    .call(zoom.scaleBy, 2, [ML + S.W / 2, 0]),
);
d3.select("#zoom-out").on("click", () =>
  ovZ
    .transition()
    .duration(250)
    .call(zoom.scaleBy, 0.5, [ML + S.W / 2, 0]),
);
d3.select("#zoom-reset").on("click", () => ovZ.transition().duration(300).call(zoom.transform, d3.zoomIdentity));

// ---------- highlight and the story's steps ----------
interface Span {
  s: number;
  e: number;
  l0: number;
  l1: number;
  row?: number;
}
let highlighted: string | null = null;
function refSpan(ref: string): Span | null {
  const [kind, n] = ref.split(":");
  const i = Number(n);
  switch (kind) {
    case "hold":
      return { s: H.s[i]!, e: H.e[i]!, l0: H.lane[i]!, l1: H.lane[i]! };
    case "wait":
      return { s: H.w[i]!, e: H.s[i]!, l0: H.lane[i]!, l1: H.lane[i]! };
    case "write":
      return { s: WR.t[i]!, e: WR.t[i]!, l0: resourceLane, l1: resourceLane };
    case "attempt":
      return { s: A.s[i]!, e: A.e[i]!, l0: A.lane[i]!, l1: A.lane[i]! };
    case "error":
      return { s: E.t[i]!, e: E.t[i]!, l0: E.lane[i]!, l1: E.lane[i]! };
    case "note":
      return { s: D.notes[i]!.t, e: D.notes[i]!.t, l0: D.notes[i]!.lane, l1: D.notes[i]!.lane };
    case "fault": {
      const f = D.faults[i]! as (typeof D.faults)[number] & { row?: number };
      if (onNetRow(f)) return { s: f.s, e: faultEnd(f), l0: -1, l1: -1, row: f.row };
      return { s: f.s, e: faultEnd(f), l0: Math.min(...f.lanes), l1: Math.max(...f.lanes) };
    }
    case "violation": {
      const v = D.violations[i]!;
      const ls = v.holds.map((h) => H.lane[h]!);
      if (v.writes.length) ls.push(resourceLane);
      return { s: v.s, e: v.e, l0: Math.min(...ls), l1: Math.max(...ls) };
    }
    case "span": {
      // "span:<startUs>-<endUs>": a window named by a checker's witness (the linearizability failure).
      const [s, e] = (n ?? "").split("-").map(Number);
      return { s: s!, e: e!, l0: 0, l1: Math.max(0, D.lanes.length - 1) };
    }
  }
  return null;
}
function drawHighlight(): void {
  const sp = highlighted ? refSpan(highlighted) : null;
  const xz = S.xz;
  const W = S.W;
  L.hiG
    .selectAll("rect.hi")
    .data(sp ? [sp] : [])
    .join("rect")
    .attr("class", "hi")
    .attr("x", (d) => Math.max(ML - 3, xz(d.s) - 4))
    .attr("width", (d) => Math.max(8, Math.min(ML + W + 3, xz(d.e) + 4) - Math.max(ML - 3, xz(d.s) - 4)))
    .attr("y", (d) => (d.l0 < 0 ? MT + (d.row ?? 0) * NET_ROW : laneY(d.l0) + 1))
    .attr("height", (d) => (d.l0 < 0 ? NET_ROW + 4 : laneY(d.l1) - laneY(d.l0) + LANE_H - 2));
}
function highlight(ref: string | null): void {
  highlighted = ref;
  drawHighlight();
}
const steps = d3.selectAll<HTMLElement, unknown>("#steps li[data-ref]");
let activeRef: string | null = null;
steps
  .on("mouseenter", function () {
    highlight(this.getAttribute("data-ref"));
  })
  .on("mouseleave", function () {
    if (!this.classList.contains("active")) highlight(activeRef);
  })
  .on("click", function () {
    activate(this);
  });
function activate(li: HTMLElement): void {
  steps.classed("active", false);
  d3.select(li).classed("active", true);
  activeRef = li.getAttribute("data-ref");
  highlight(activeRef);
  const sp = activeRef ? refSpan(activeRef) : null;
  if (sp) {
    const span = Math.max(sp.e - sp.s, 2000);
    zoomTo(sp.s - span * 0.6 - 500, sp.e + span * 0.6 + 500);
  }
}
function focusStepFor(ref: string): void {
  let found: HTMLElement | null = null;
  steps.each(function () {
    // d3's each hands each element to its callback as `this`.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    if (!found && this.getAttribute("data-ref") === ref) found = this;
  });
  highlight(ref);
  activeRef = ref;
  steps.classed("active", false);
  if (found) {
    d3.select(found).classed("active", true);
    (found as HTMLElement).scrollIntoView({ block: "nearest" });
  }
}
/** "show on the timeline": a violation by index, or any ref (data-show="span:s-e"). */
function showOnTimeline(ref: string): void {
  focusStepFor(ref);
  const sp = refSpan(ref);
  if (!sp) return;
  const span = Math.max(sp.e - sp.s, 2000);
  // A violation is short: show it with context. A checker's window is already the context.
  const pad = ref.startsWith("span:") ? 0.15 : 2;
  zoomTo(sp.s - span * pad - 500, sp.e + span * pad + 500);
  document.getElementById("timeline-section")!.scrollIntoView({ block: "start", behavior: "smooth" });
}
d3.selectAll<HTMLElement, unknown>("[data-violation]").on("click", function () {
  showOnTimeline("violation:" + this.getAttribute("data-violation"));
});
d3.selectAll<HTMLElement, unknown>("[data-show]").on("click", function () {
  showOnTimeline(this.getAttribute("data-show")!);
});

// ---------- draw ----------
function redraw(): void {
  drawCanvas(L.ctx);
  drawSvg(L, drawHighlight);
  charts.draw();
  stats.redraws++;
  const dm = S.xz.domain() as [number, number];
  stats.domainUs = [dm[0], dm[1]];
  L.root
    .attr("data-holds-drawn", stats.holdsDrawn)
    .attr("data-violations-drawn", stats.violationsDrawn)
    .attr("data-notes-drawn", stats.notesDrawn)
    .attr("data-domain-us", Math.round(dm[0]) + "," + Math.round(dm[1]));
  d3.select("#zoom-state").text("showing " + fmtT(dm[0]) + " – " + fmtT(dm[1]) + " (" + fmtDur(dm[1] - dm[0]) + ")");
}
layout();
redraw();
// The linearization's operation that cannot follow is drawn last: a frame narrower than the drawing opens scrolled to it.
for (const f of document.querySelectorAll<HTMLElement>(".lin-frame")) f.scrollLeft = f.scrollWidth;
stats.drawMs = performance.now();
document.body.setAttribute("data-drawn", "1");
let resizePending = false;
window.addEventListener("resize", () => {
  if (resizePending) return;
  resizePending = true;
  requestAnimationFrame(() => {
    resizePending = false;
    layout();
    redraw();
  });
});
d3.select("#copy-replay").on("click", function () {
  const code = document.getElementById("replay-command")!;
  const range = document.createRange();
  range.selectNodeContents(code);
  const sel = window.getSelection()!;
  sel.removeAllRanges();
  sel.addRange(range);
  try {
    document.execCommand("copy");
    d3.select(this as HTMLElement).text("copied");
  } catch {
    d3.select(this as HTMLElement).text("press Ctrl+C");
  }
});
