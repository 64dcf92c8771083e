/**
 * The timeline's stacked layers in #timeline: an SVG background (lanes, fault bands),
 * the canvas of dense marks, and an SVG overlay (faults, server notes, violations,
 * axes, highlight) that also takes the pointer.
 */
import * as d3 from "d3";
import type { AnySel } from "./model.js";

export interface Layers {
  root: AnySel;
  bg: AnySel;
  canvas: AnySel;
  ctx: CanvasRenderingContext2D;
  ov: AnySel;
  bgLanes: AnySel;
  bgFaults: AnySel;
  axTop: AnySel;
  axBot: AnySel;
  labels: AnySel;
  netG: AnySel;
  faultG: AnySel;
  noteG: AnySel;
  roleG: AnySel;
  violG: AnySel;
  /** The violations' words, above the servers' notes so no mark covers them. */
  vlabelG: AnySel;
  hiG: AnySel;
  hit: AnySel;
}

export function createLayers(): Layers {
  const root = d3.select("#timeline");
  const bg = root.append("svg").attr("class", "layer bg");
  const canvas = root.append("canvas").attr("class", "layer");
  const ctx = (canvas.node() as HTMLCanvasElement).getContext("2d")!;
  const ov = root.append("svg").attr("class", "layer overlay").attr("role", "img").attr("aria-label", "timeline of the run");
  const defs = ov.append("defs");
  // The pause hatch: yellow stripes (the lapse edge of a hold is magenta, so the two never read as one).
  const hatchOv = defs
    .append("pattern")
    .attr("id", "hatch-ov")
    .attr("patternUnits", "userSpaceOnUse")
    .attr("width", 7)
    .attr("height", 7)
    .attr("patternTransform", "rotate(45)");
  hatchOv.append("rect").attr("width", 7).attr("height", 7).attr("fill", "#fff3b0").attr("fill-opacity", 0.35);
  hatchOv.append("line").attr("x1", 0).attr("y1", 0).attr("x2", 0).attr("y2", 7).attr("stroke", "#d4a300").attr("stroke-width", 3).attr("stroke-opacity", 0.8);
  const bgDefs = bg.append("defs");
  const hatch = bgDefs
    .append("pattern")
    .attr("id", "hatch")
    .attr("patternUnits", "userSpaceOnUse")
    .attr("width", 6)
    .attr("height", 6)
    .attr("patternTransform", "rotate(45)");
  hatch.append("rect").attr("width", 6).attr("height", 6).attr("fill", "#fff4cc");
  hatch.append("line").attr("x1", 0).attr("y1", 0).attr("x2", 0).attr("y2", 6).attr("stroke", "#e0b100").attr("stroke-width", 2.5);
  defs.append("clipPath").attr("id", "plotclip").append("rect");
  bgDefs.append("clipPath").attr("id", "plotclip2").append("rect");
  const bgLanes = bg.append("g");
  const bgFaults = bg.append("g").attr("clip-path", "url(#plotclip2)");
  const axTop = ov.append("g").attr("class", "axis");
  const axBot = ov.append("g").attr("class", "axis");
  const labels = ov.append("g").attr("class", "lane-labels");
  const marks = ov.append("g").attr("clip-path", "url(#plotclip)");
  const netG = marks.append("g");
  const faultG = marks.append("g");
  const roleG = marks.append("g").attr("class", "roles");
  // Server notes above the violation bands, which may span a server's lane between a client and the resource.
  const violG = marks.append("g");
  const noteG = marks.append("g");
  const vlabelG = marks.append("g").attr("class", "vlabels");
  const hiG = marks.append("g");
  const hit = ov.append("rect").attr("class", "hit-area").attr("fill", "transparent");
  hit.lower();
  return { root, bg, canvas, ctx, ov, bgLanes, bgFaults, axTop, axBot, labels, netG, faultG, noteG, roleG, violG, vlabelG, hiG, hit };
}
