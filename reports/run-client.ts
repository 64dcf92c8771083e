/**
 * The run report's script, as it runs in the browser (plain ES2017, d3 v7 as the
 * global `d3`). It reads the RunView embedded in #run-data (reports/run-view.ts
 * documents the columns) and draws:
 *  - the timeline: dense marks (holds, waits, attempts, writes) on a canvas, the few
 *    annotated ones (faults, violations, axes, labels, highlights) in SVG around it;
 *  - the clocks and the acquire-latency charts, which follow the timeline's zoom.
 * Every string from the data reaches the DOM through d3's .text() or canvas
 * fillText, never as markup.
 *
 * After the first draw it sets <body data-drawn="1"> and window.lockstepReport with
 * what it drew (counts, the visible time domain, when drawing finished): the
 * browser test reads these.
 */
import { UNPACK_JS } from "./pack.js";

export const RUN_CLIENT_JS = "(function () {\n\"use strict\";\n" + UNPACK_JS + "\n" + String.raw`
var D = unpackView(JSON.parse(document.getElementById("run-data").textContent));
var lanes = D.lanes, H = D.holds, A = D.attempts, E = D.errors, WR = D.writes;
var nHolds = H.s.length;
var LANE_H = lanes.length <= 6 ? 38 : lanes.length <= 12 ? 30 : 24, NET_ROW = 20, MR = 14, MT = 26, MB = 24;
// The left margin fits the longest lane name (12px bold: about 7.4px a character).
var ML = Math.min(220, Math.max(80, 18 + 7.4 * Math.max.apply(null, lanes.map(function (l) { return l.id.length; }).concat([7]))));
var LOCK_COLORS = ["#3b6fb6", "#2a9d8f", "#7b5ea7", "#c17d11", "#4a7c59", "#5d6d7e", "#a05195", "#1f7a8c"];
var BAD = "#d62728";
var dpr = window.devicePixelRatio || 1;
var stats = { holdsTotal: nHolds, holdsDrawn: 0, waitsDrawn: 0, attemptsDrawn: 0, writesDrawn: 0, violationsDrawn: 0, faultsDrawn: 0, drawMs: 0, redraws: 0 };
window.lockstepReport = stats;

// ---------- formatting ----------
function fmtDur(us) {
  var a = Math.abs(us);
  if (a >= 1e6) return +(us / 1e6).toFixed(a >= 1e7 ? 2 : 3) + " s";
  if (a >= 1e3) return +(us / 1e3).toFixed(3) + " ms";
  return Math.round(us) + " µs";
}
function fmtT(us) { return (us / 1e6).toFixed(6).replace(/0{1,3}$/, "") + " s"; }
function tickFormatFor(stepUs) {
  var dec = Math.max(0, Math.min(6, -Math.floor(Math.log10(stepUs / 1e6) + 1e-9)));
  return function (us) { return (us / 1e6).toFixed(dec) + " s"; };
}
function lockName(i) { return D.locks[i]; }
function laneId(i) { return i >= 0 && lanes[i] ? lanes[i].id : "?"; }
function grantName(i) { var g = H.g[i]; return g >= 0 ? laneId(H.lane[i]) + "#" + g : D.strings[-g - 1]; }
function str(i) { return i >= 0 ? D.strings[i] : ""; }
function lockColor(i) { return LOCK_COLORS[i % LOCK_COLORS.length]; }
var HOLD_END = ["released it", "its own clock said the lease had expired", "it crashed", "the history ended"];
var RELEASE = ["released", "key already gone (the lease had expired)", "release failed or unknown", "no release"];

// ---------- per-lane indexes ----------
function byLane(laneArr, n, timeArr) {
  var out = lanes.map(function () { return []; });
  for (var i = 0; i < n; i++) if (laneArr[i] >= 0) out[laneArr[i]].push(i);
  out.forEach(function (l) { l.sort(function (a, b) { return timeArr[a] - timeArr[b]; }); });
  return out;
}
var holdsBy = byLane(H.lane, nHolds, H.s);
var holdMaxE = holdsBy.map(function (l) { var m = -Infinity; return l.map(function (i) { m = Math.max(m, H.e[i]); return m; }); });
var holdMaxWait = holdsBy.map(function (l) { var m = 0; l.forEach(function (i) { m = Math.max(m, H.s[i] - H.w[i]); }); return m; });
var attemptsBy = byLane(A.lane, A.s.length, A.s);
var errorsBy = byLane(E.lane, E.t.length, E.t);
var writeOrder = WR.t.map(function (_, i) { return i; }).sort(function (a, b) { return WR.t[a] - WR.t[b]; });
var resourceLane = lanes.findIndex(function (l) { return l.kind === "resource"; });
function lowerBound(arr, idx, key, v) { // first position p with arr[idx[p]] >= v
  var lo = 0, hi = idx.length;
  while (lo < hi) { var m = (lo + hi) >> 1; if (arr[idx[m]] < v) lo = m + 1; else hi = m; }
  return lo;
}
function lowerBoundPlain(arr, v) {
  var lo = 0, hi = arr.length;
  while (lo < hi) { var m = (lo + hi) >> 1; if (arr[m] < v) lo = m + 1; else hi = m; }
  return lo;
}

// ---------- layout ----------
var NET_KINDS = { partition: 1, isolate: 1, cut: 1, delay: 1, loss: 1, heal: 1 };
var netFaults = D.faults.filter(function (f) { return NET_KINDS[f.kind]; });
var hasNet = netFaults.length > 0;
// Network faults that overlap in time get rows of their own in the network lane.
var netRowEnds = [];
netFaults.slice().sort(function (p, q) { return p.s - q.s; }).forEach(function (f) {
  var e = f.e === null ? f.s : f.e, r = 0;
  while (r < netRowEnds.length && netRowEnds[r] > f.s) r++;
  netRowEnds[r] = Math.max(e, f.s + 1);
  f.row = r;
});
var NET_H = Math.max(1, netRowEnds.length) * NET_ROW + 4;
var top0 = MT + (hasNet ? NET_H : 0);
function laneY(l) { return top0 + l * LANE_H; }
var plotH = (hasNet ? NET_H : 0) + lanes.length * LANE_H;
var totalH = MT + plotH + MB;

var root = d3.select("#timeline");
var W = 600, x = d3.scaleLinear(), xz = x;
var bg = root.append("svg").attr("class", "layer bg");
var canvas = root.append("canvas").attr("class", "layer");
var ctx = canvas.node().getContext("2d");
var ov = root.append("svg").attr("class", "layer overlay").attr("role", "img").attr("aria-label", "timeline of the run");
var defs = ov.append("defs");
var hatchOv = defs.append("pattern").attr("id", "hatch-ov").attr("patternUnits", "userSpaceOnUse").attr("width", 7).attr("height", 7).attr("patternTransform", "rotate(45)");
hatchOv.append("rect").attr("width", 7).attr("height", 7).attr("fill", "#fff3b0").attr("fill-opacity", 0.35);
hatchOv.append("line").attr("x1", 0).attr("y1", 0).attr("x2", 0).attr("y2", 7).attr("stroke", "#d4a300").attr("stroke-width", 3).attr("stroke-opacity", 0.8);
var hatch = bg.append("defs").append("pattern").attr("id", "hatch").attr("patternUnits", "userSpaceOnUse").attr("width", 6).attr("height", 6).attr("patternTransform", "rotate(45)");
hatch.append("rect").attr("width", 6).attr("height", 6).attr("fill", "#fff4cc");
hatch.append("line").attr("x1", 0).attr("y1", 0).attr("x2", 0).attr("y2", 6).attr("stroke", "#e0b100").attr("stroke-width", 2.5);
defs.append("clipPath").attr("id", "plotclip").append("rect");
var bgLanes = bg.append("g"), bgFaults = bg.append("g").attr("clip-path", "url(#plotclip2)");
bg.append("defs").append("clipPath").attr("id", "plotclip2").append("rect");
var axTop = ov.append("g").attr("class", "axis"), axBot = ov.append("g").attr("class", "axis");
var labels = ov.append("g").attr("class", "lane-labels");
var marks = ov.append("g").attr("clip-path", "url(#plotclip)");
var netG = marks.append("g"), faultG = marks.append("g"), noteG = marks.append("g"), violG = marks.append("g"), hiG = marks.append("g");
var hit = ov.append("rect").attr("class", "hit-area").attr("fill", "transparent");
hit.lower();

function layout() {
  var box = root.node().getBoundingClientRect();
  W = Math.max(320, Math.floor(box.width) - ML - MR);
  var fullW = W + ML + MR;
  [bg, ov].forEach(function (s) { s.attr("width", fullW).attr("height", totalH); });
  canvas.attr("width", Math.round(fullW * dpr)).attr("height", Math.round(totalH * dpr)).style("width", fullW + "px").style("height", totalH + "px");
  root.style("height", totalH + "px");
  ov.select("#plotclip rect").attr("x", ML).attr("y", MT - 14).attr("width", W).attr("height", plotH + 14);
  bg.select("#plotclip2 rect").attr("x", ML).attr("y", MT).attr("width", W).attr("height", plotH);
  hit.attr("x", ML).attr("y", MT).attr("width", W).attr("height", plotH);
  var d0 = xz.domain();
  x = d3.scaleLinear().domain([0, Math.max(1, D.endUs)]).range([ML, ML + W]);
  zoom.extent([[ML, 0], [ML + W, totalH]]).translateExtent([[ML, 0], [ML + W, totalH]]).scaleExtent([1, Math.max(1, D.endUs / 20)]);
  xz = x;
  var t = d3.zoomTransform(ov.node());
  xz = t.rescaleX(x);
  void d0;
  drawLanes();
}

function drawLanes() {
  var rows = lanes.map(function (l, i) { return { l: l, i: i }; });
  bgLanes.selectAll("rect.lane").data(rows).join("rect").attr("class", "lane")
    .attr("x", ML).attr("width", W).attr("y", function (d) { return laneY(d.i); }).attr("height", LANE_H)
    .attr("fill", function (d) { return d.l.kind === "client" ? (d.i % 2 ? "#f7f8fa" : "#ffffff") : d.l.kind === "resource" ? "#f1f7f1" : "#f3f1f8"; });
  if (hasNet) bgLanes.selectAll("rect.net").data([0]).join("rect").attr("class", "net").attr("x", ML).attr("width", W).attr("y", MT).attr("height", NET_H).attr("fill", "#eef3fb");
  var lab = labels.selectAll("g.lab").data(rows).join(function (en) {
    var g = en.append("g").attr("class", "lab");
    g.append("text").attr("class", "lane-name");
    g.append("text").attr("class", "lane-kind");
    return g;
  });
  lab.select("text.lane-name").attr("x", ML - 8).attr("y", function (d) { return laneY(d.i) + LANE_H / 2 - 1; }).attr("text-anchor", "end").text(function (d) { return d.l.id; });
  lab.select("text.lane-kind").attr("x", ML - 8).attr("y", function (d) { return laneY(d.i) + LANE_H / 2 + 9; }).attr("text-anchor", "end")
    .text(function (d) { return d.l.kind === "resource" ? "resource" : d.l.kind === "server" ? "lock server" : d.l.kind === "client" ? "client" : ""; });
  labels.selectAll("text.net-name").data(hasNet ? [0] : []).join("text").attr("class", "lane-name net-name").attr("x", ML - 8).attr("y", MT + NET_H / 2 + 4).attr("text-anchor", "end").text("network");
}

// ---------- the canvas: dense marks ----------
function drawCanvas() {
  var a = xz.domain()[0], b = xz.domain()[1], k = W / (b - a);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W + ML + MR, totalH);
  ctx.save();
  ctx.beginPath(); ctx.rect(ML, MT, W, plotH); ctx.clip();
  ctx.font = "11px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  var X = function (t) { return ML + (t - a) * k; };
  var nH = 0, nW = 0, nWr = 0;
  for (var l = 0; l < lanes.length; l++) {
    var idx = holdsBy[l];
    if (!idx.length) continue;
    var y = laneY(l), mid = y + LANE_H / 2;
    var me = holdMaxE[l];
    var lo = lowerBoundPlain(me, a); // holds before it (and their waits) end before the view
    var lastHoldPx = -1, lastWaitPx = -1;
    for (var p = lo; p < idx.length; p++) {
      var i = idx[p];
      if (H.w[i] > b && H.s[i] > b + holdMaxWait[l]) break;
      if (H.w[i] > b) continue;
      // wait: from the acquire's invoke to the grant
      if (H.s[i] > H.w[i] && H.s[i] >= a && H.w[i] <= b) {
        var wx0 = Math.max(ML, X(H.w[i])), wx1 = Math.min(ML + W, X(H.s[i]));
        if (wx1 - wx0 >= 1 || Math.floor(wx0) !== lastWaitPx) {
          ctx.fillStyle = "#9aa3ad";
          ctx.fillRect(wx0, mid - 1, Math.max(1, wx1 - wx0), 2);
          lastWaitPx = Math.floor(wx0);
        }
        nW++;
      }
      if (H.e[i] < a || H.s[i] > b) continue;
      nH++;
      var x0 = X(H.s[i]), x1 = X(H.e[i]);
      var cx0 = Math.max(ML - 1, x0), cx1 = Math.min(ML + W + 1, x1);
      var bad = H.bad[i] === 1;
      if (cx1 - cx0 < 1) {
        var px = Math.floor(cx0);
        if (px === lastHoldPx && !bad) continue;
        ctx.fillStyle = bad ? BAD : lockColor(H.lock[i]);
        ctx.fillRect(px, y + 5, bad ? 2 : 1, LANE_H - 10);
        lastHoldPx = px;
        continue;
      }
      lastHoldPx = Math.floor(cx1);
      ctx.fillStyle = lockColor(H.lock[i]);
      ctx.fillRect(cx0, y + 5, cx1 - cx0, LANE_H - 10);
      // the lease the client believed it had: a dark rule under the bar from the grant to grant + validity
      if (H.val[i] >= 0) {
        var vx1 = Math.min(ML + W + 1, X(H.s[i] + H.val[i] * 1000));
        ctx.fillStyle = "#1d2430";
        vx1 = Math.min(vx1, cx1);
        if (vx1 > cx0) ctx.fillRect(cx0, y + LANE_H - 5, vx1 - cx0, 2);
      }
      // acting after its lease had lapsed by its own clock: a yellow top edge from the lapse on
      if (H.st[i] === 1) {
        var lx0 = H.lap[i] >= 0 ? Math.max(cx0, X(H.lap[i])) : cx0;
        ctx.fillStyle = "#f2c200"; ctx.fillRect(lx0, y + 5, Math.max(2, cx1 - lx0), 3);
      }
      var label = H.tok[i] >= 0 ? "token " + H.tok[i] : grantName(i);
      if (cx1 - cx0 > label.length * 6.2 + 8) {
        ctx.fillStyle = "#fff";
        var lx = Math.max(cx0, ML) + 4;
        ctx.fillText(label, lx, LANE_H >= 30 ? y + 13 : mid); // upper half: a pause's label may take the lower
      }
    }
  }
  // failed or unknown acquire attempts: a dashed orange line ending in a cross
  var nA = 0;
  for (l = 0; l < lanes.length; l++) {
    var ai = attemptsBy[l];
    for (p = 0; p < ai.length; p++) {
      i = ai[p];
      if (A.e[i] < a || A.s[i] > b) continue;
      nA++;
      y = laneY(l) + LANE_H / 2;
      var ax0 = Math.max(ML, X(A.s[i])), ax1 = Math.min(ML + W, X(A.e[i]));
      ctx.fillStyle = "#e07b00";
      ctx.fillRect(ax0, y - 1, Math.max(1, ax1 - ax0), 2);
      if (A.e[i] <= b) cross(X(A.e[i]), y, 4, A.out[i] === 0 ? "#e07b00" : "#8a8a8a");
    }
    var ei = errorsBy[l];
    for (p = 0; p < ei.length; p++) {
      i = ei[p];
      if (E.t[i] < a || E.t[i] > b) continue;
      var ex = X(E.t[i]); y = laneY(l);
      ctx.fillStyle = E.out[i] === 0 ? "#e07b00" : "#8a8a8a";
      ctx.beginPath(); ctx.moveTo(ex, y + 3); ctx.lineTo(ex - 4, y + 10); ctx.lineTo(ex + 4, y + 10); ctx.closePath(); ctx.fill();
    }
  }
  // writes at the resource: a tick up for accepted, a cross for rejected
  if (resourceLane >= 0) {
    y = laneY(resourceLane);
    var lastPx = -1, lastOk = -1;
    var wlo = lowerBound(WR.t, writeOrder, 0, a);
    for (p = wlo; p < writeOrder.length; p++) {
      i = writeOrder[p];
      if (WR.t[i] > b) break;
      nWr++;
      var wx = X(WR.t[i]), wpx = Math.floor(wx);
      var isBad = WR.bad[i] === 1;
      if (wpx === lastPx && WR.ok[i] === lastOk && !isBad) continue;
      lastPx = wpx; lastOk = WR.ok[i];
      if (WR.ok[i] === 1) {
        ctx.fillStyle = isBad ? BAD : "#2e7d32";
        ctx.fillRect(wx - (isBad ? 1.5 : 0.75), y + 5, isBad ? 3 : 1.5, LANE_H - 10);
      } else {
        cross(wx, y + LANE_H / 2, 5, isBad ? BAD : "#e07b00");
      }
    }
  }
  ctx.restore();
  stats.holdsDrawn = nH; stats.waitsDrawn = nW; stats.attemptsDrawn = nA; stats.writesDrawn = nWr;
}
function cross(cx, cy, r, color) {
  ctx.strokeStyle = color; ctx.lineWidth = 2;
  ctx.beginPath(); ctx.moveTo(cx - r, cy - r); ctx.lineTo(cx + r, cy + r); ctx.moveTo(cx + r, cy - r); ctx.lineTo(cx - r, cy + r); ctx.stroke();
}

// ---------- SVG: faults, notes, violations ----------
var SIDE_COLORS = ["#dbe8ff", "#ffe3d6", "#e2f5dc", "#f3e0f7"];
function faultLabel(f) {
  var who = f.lanes.map(laneId).join(", ");
  switch (f.kind) {
    case "pause": return "paused" + (f.e !== null ? " " + fmtDur(f.e - f.s) : "");
    case "crash": return "crashed";
    case "restart": return "restart";
    case "clock-jump": return "clock " + (f.deltaMs >= 0 ? "+" : "−") + fmtDur(Math.abs(f.deltaMs) * 1000);
    case "clock-drift": return "drift " + f.driftPpm + " ppm";
    case "partition": case "isolate": return "partition " + (f.groups || []).map(function (g) { return "{" + g.join(", ") + "}"; }).join(f.oneWay ? " → " : " | ");
    case "heal": return "heal";
    case "delay": return "delay +" + f.extraMs + " ms: " + who;
    case "loss": return "loss " + f.lossRate + ": " + who;
    case "cut": return "links cut: " + who;
    default: return f.kind;
  }
}
var faultEnd = function (f) { return f.e === null ? (f.kind === "crash" ? D.endUs : f.s) : f.e; };

function drawSvg() {
  var a = xz.domain()[0], b = xz.domain()[1];
  var X = function (t) { return xz(t); };
  var vis = function (s, e) { return e >= a && s <= b; };
  // background bands on process lanes: pauses, crashes, drift, and the partition's sides
  var bands = [];
  D.faults.forEach(function (f, fi) {
    var e = faultEnd(f);
    if (f.kind === "crash" || f.kind === "clock-drift") {
      f.lanes.forEach(function (l) { bands.push({ f: f, fi: fi, l: l, s: f.s, e: e, cls: f.kind }); });
    } else if ((f.kind === "partition" || f.kind === "isolate") && f.groups) {
      f.groups.forEach(function (g, gi) {
        g.forEach(function (id) {
          var l = lanes.findIndex(function (x) { return x.id === id; });
          if (l >= 0) bands.push({ f: f, fi: fi, l: l, s: f.s, e: e, cls: "side", side: gi });
        });
      });
    }
  });
  var bv = bands.filter(function (d) { return vis(d.s, d.e); });
  bgFaults.selectAll("rect.band").data(bv).join("rect").attr("class", function (d) { return "band " + d.cls; })
    .attr("x", function (d) { return Math.max(ML - 2, X(d.s)); })
    .attr("width", function (d) { return Math.max(2, Math.min(ML + W + 2, X(d.e)) - Math.max(ML - 2, X(d.s))); })
    .attr("y", function (d) { return laneY(d.l) + (d.cls === "side" ? 0 : 1); })
    .attr("height", function (d) { return d.cls === "side" ? LANE_H : LANE_H - 2; })
    .attr("fill", function (d) { return d.cls === "pause" ? "url(#hatch)" : d.cls === "crash" ? "#c9c9c9" : d.cls === "side" ? SIDE_COLORS[d.side % SIDE_COLORS.length] : "#e8f1ff"; });
  // fault labels and markers in the overlay
  var fm = [];
  D.faults.forEach(function (f, fi) {
    var e = faultEnd(f);
    if (!vis(f.s, e)) return;
    if (NET_KINDS[f.kind]) fm.push({ f: f, fi: fi, type: "net", y: MT + 3 + f.row * NET_ROW, s: f.s, e: e });
    else if (f.kind === "clock-jump" || f.kind === "restart") f.lanes.forEach(function (l) { fm.push({ f: f, fi: fi, type: "point", y: laneY(l), s: f.s, e: f.s, l: l }); });
    else f.lanes.forEach(function (l) { fm.push({ f: f, fi: fi, type: "span", y: laneY(l), s: f.s, e: e, l: l }); });
  });
  stats.faultsDrawn = fm.length;
  var fg = faultG.selectAll("g.fault").data(fm, function (d) { return d.fi + ":" + d.type + ":" + (d.l === undefined ? "" : d.l); }).join(function (en) {
    var g = en.append("g").attr("class", function (d) { return "fault mark fault-" + d.f.kind; });
    g.append("path");
    g.append("text");
    return g;
  });
  fg.each(function (d) {
    var g = d3.select(this), x0 = X(d.s), x1 = X(d.e);
    g.datum().tip = function () { return faultTip(d.f); };
    g.attr("data-ref", "fault:" + d.fi);
    if (d.type === "net") {
      var w = Math.max(3, x1 - x0);
      g.select("path").attr("d", "M" + x0 + "," + d.y + "h" + w + "v" + (NET_ROW - 3) + "h" + (-w) + "z").attr("fill", d.f.kind === "heal" ? "#2e7d32" : "#3b6fb6").attr("opacity", 0.85);
      // The label goes inside the bar when it fits, else just after it, in dark text.
      var nl = faultLabel(d.f), vis0 = Math.max(x0, ML), vis1 = Math.min(x0 + w, ML + W);
      var fits = vis1 - vis0 > nl.length * 6.6 + 8;
      g.select("text").attr("x", fits ? vis0 + 4 : vis1 + 4).attr("y", d.y + NET_ROW / 2 + 2).attr("fill", fits ? "#fff" : null)
        .attr("class", fits ? "fault-label" : "fault-label dark net-out").text(nl);
    } else if (d.type === "point") {
      var cy = d.y + LANE_H / 2;
      g.select("path").attr("d", d.f.kind === "restart" ? "M" + x0 + "," + (d.y + 3) + "l6,10l-12,0z" : "M" + x0 + "," + (cy - 7) + "l7,7l-7,7l-7,-7z")
        .attr("fill", d.f.kind === "restart" ? "#2e7d32" : "#8e44ad").attr("stroke", "#fff");
      g.select("text").attr("x", x0 + 9).attr("y", cy + 4).attr("class", "fault-label dark").text(faultLabel(d.f));
    } else {
      var sx0 = Math.max(ML - 2, x0), sw = Math.max(3, Math.min(ML + W + 2, x1) - sx0);
      g.select("path").attr("d", "M" + sx0 + "," + (d.y + 1) + "h" + sw + "v" + (LANE_H - 2) + "h" + (-sw) + "z")
        .attr("fill", d.f.kind === "pause" ? "url(#hatch-ov)" : "none").attr("stroke", d.f.kind === "pause" ? "#c99a00" : "#777").attr("stroke-dasharray", "3,2");
      var lw = Math.min(ML + W, x1) - Math.max(ML, x0);
      var sl = faultLabel(d.f), inside = lw > sl.length * 6.6 + 10;
      g.select("text").attr("x", inside ? (Math.max(x0, ML) + Math.min(x1, ML + W)) / 2 : Math.min(x1, ML + W) + 4).attr("text-anchor", inside ? "middle" : "start")
        .attr("y", LANE_H >= 30 ? d.y + LANE_H - 8 : d.y + LANE_H / 2 + 4).attr("class", "fault-label dark").text(sl);
    }
  });
  // server annotations (failovers, ...)
  var nv = D.notes.map(function (n, i) { return { n: n, i: i }; }).filter(function (d) { return d.n.t >= a && d.n.t <= b; });
  noteG.selectAll("g.note").data(nv, function (d) { return d.i; }).join(function (en) {
    var g = en.append("g").attr("class", "note mark");
    g.append("path").attr("fill", "#8e44ad");
    g.append("text").attr("class", "fault-label dark");
    return g;
  }).each(function (d) {
    var g = d3.select(this), nx = X(d.n.t), ny = laneY(d.n.lane);
    d.tip = function () { return { title: d.n.title, rows: [["at", fmtT(d.n.t)]].concat(d.n.rows) }; };
    g.attr("data-ref", "note:" + d.i);
    g.select("path").attr("d", "M" + nx + "," + (ny + 4) + "l5,9l-10,0z");
    g.select("text").attr("x", nx + 7).attr("y", ny + 14).text(d.n.f);
  });
  // violations: a red band over the lanes involved, a flag above the plot
  var vv = D.violations.map(function (v, i) { return { v: v, i: i }; }).filter(function (d) { return vis(d.v.s, d.v.e); });
  // Many overlaps close together (one long stale hold against many short ones) get one flag and one word.
  vv.sort(function (p, q) { return p.v.s - q.v.s; });
  var lastFlagX = -Infinity;
  vv.forEach(function (d) { var cx = X(d.v.s); d.label = cx - lastFlagX > 80; if (d.label) lastFlagX = cx; });
  stats.violationsDrawn = vv.length;
  violG.selectAll("g.violation").data(vv, function (d) { return d.i; }).join(function (en) {
    var g = en.append("g").attr("class", "violation mark");
    g.append("rect").attr("class", "vband");
    g.append("path").attr("class", "vflag");
    g.append("text").attr("class", "vlabel");
    return g;
  }).each(function (d) {
    var g = d3.select(this), v = d.v;
    var ls = v.holds.map(function (h) { return H.lane[h]; });
    v.writes.forEach(function () { if (resourceLane >= 0) ls.push(resourceLane); });
    if (!ls.length) ls = [0];
    var y0 = laneY(d3.min(ls)), y1 = laneY(d3.max(ls)) + LANE_H;
    var x0 = X(v.s), w = Math.max(4, X(v.e) - x0);
    if (w === 4) x0 -= 2;
    d.tip = function () { return { title: "violation: " + v.checker, rows: [["lock", v.lock], ["from", fmtT(v.s)], ["to", fmtT(v.e)], ["for", fmtDur(v.e - v.s)]], text: v.sentence, bad: true }; };
    g.attr("data-ref", "violation:" + d.i);
    g.select("rect.vband").attr("x", x0).attr("width", w).attr("y", y0).attr("height", y1 - y0).attr("fill", BAD).attr("fill-opacity", 0.22).attr("stroke", BAD).attr("stroke-width", 1.5);
    // The flag sits on the band's top edge and the word under the band, clear of the network lane's labels.
    g.select("path.vflag").attr("d", d.label ? "M" + (x0 + w / 2) + "," + (y0 + 9) + "l-6,-10h12z" : null).attr("fill", BAD);
    g.select("text.vlabel").attr("x", x0 + w / 2).attr("text-anchor", "middle").attr("y", Math.min(y1 + 12, MT + plotH - 2)).text(d.label ? "violation" : "");
  });
  // axes
  var ticks = Math.max(2, Math.floor(W / 110));
  var tv = xz.ticks(ticks), step = tv.length > 1 ? tv[1] - tv[0] : (b - a);
  var ax = d3.axisTop(xz).ticks(ticks).tickFormat(tickFormatFor(step)).tickSizeOuter(0);
  axTop.attr("transform", "translate(0," + MT + ")").call(ax.tickSize(4));
  axBot.attr("transform", "translate(0," + (MT + plotH) + ")").call(d3.axisBottom(xz).ticks(ticks).tickFormat(tickFormatFor(step)).tickSizeOuter(0).tickSize(-plotH)).selectAll(".tick line").attr("stroke", "#000").attr("stroke-opacity", 0.06);
  drawHighlight();
}

// ---------- tooltips ----------
var tipEl = d3.select("#tooltip");
function holdTip(i) {
  var rows = [["grant", grantName(i)]];
  rows.push(["fencing token", H.tok[i] >= 0 ? String(H.tok[i]) : "none (this design issues no token)"]);
  rows.push(["held", fmtT(H.s[i]) + " → " + fmtT(H.e[i]) + "  (" + fmtDur(H.e[i] - H.s[i]) + ")"]);
  rows.push(["waited for it", fmtDur(H.s[i] - H.w[i]) + " (acquire invoked at " + fmtT(H.w[i]) + ")"]);
  if (H.val[i] >= 0) rows.push(["lease it believed it had", fmtDur(H.val[i] * 1000)]);
  if (H.lap[i] >= 0) rows.push(["its clock said the lease lapsed at", fmtT(H.lap[i])]);
  rows.push(["hold ended because", HOLD_END[H.by[i]] || "?"]);
  rows.push(["release", RELEASE[H.rel[i]] || "?"]);
  return { title: laneId(H.lane[i]) + " holds " + lockName(H.lock[i]), rows: rows, text: H.st[i] ? "It went on reading or writing after its own clock said the lease had lapsed (yellow edge)." : H.bad[i] ? "" : "", bad: H.bad[i] === 1, foot: H.bad[i] ? "part of a violation" : "" };
}
function waitTip(i) { return { title: laneId(H.lane[i]) + " waits for " + lockName(H.lock[i]), rows: [["acquire invoked", fmtT(H.w[i])], ["granted", fmtT(H.s[i])], ["waited", fmtDur(H.s[i] - H.w[i])]] }; }
function attemptTip(i) { return { title: laneId(A.lane[i]) + "'s acquire of " + lockName(A.lock[i]) + (A.out[i] === 0 ? " failed" : " ended unknown"), rows: [["invoked", fmtT(A.s[i])], ["ended", fmtT(A.e[i])], ["after", fmtDur(A.e[i] - A.s[i])], ["reason", str(A.why[i]) || "—"]] }; }
function errorTip(i) { return { title: laneId(E.lane[i]) + "'s " + str(E.f[i]) + " " + (E.out[i] === 0 ? "failed" : "outcome unknown"), rows: [["lock", lockName(E.lock[i])], ["at", fmtT(E.t[i])], ["reason", str(E.why[i]) || "—"]] }; }
function writeTip(i) {
  var rows = [["writer", laneId(WR.cl[i])], ["lock", lockName(WR.lock[i])], ["at", fmtT(WR.t[i])], ["counter written", String(WR.counter[i])], ["fencing token", WR.tok[i] >= 0 ? String(WR.tok[i]) : "none"]];
  if (WR.hold[i] >= 0) rows.push(["under grant", grantName(WR.hold[i])]);
  if (WR.why[i] >= 0) rows.push(["reason", str(WR.why[i])]);
  return { title: "the resource " + (WR.ok[i] ? "accepted" : "rejected") + " a write", rows: rows, bad: WR.bad[i] === 1, foot: WR.bad[i] ? "a checker names this write in a violation" : "" };
}
function faultTip(f) {
  var rows = [["kind", f.kind], ["from", fmtT(f.s)]];
  if (f.e !== null) rows.push(["until", fmtT(f.e) + " (" + fmtDur(f.e - f.s) + ")"]);
  if (f.lanes.length) rows.push(["acts on", f.lanes.map(laneId).join(", ")]);
  if (f.groups) f.groups.forEach(function (g, gi) { rows.push(["side " + String.fromCharCode(65 + gi), g.join(", ")]); });
  if (f.deltaMs !== undefined) rows.push(["jump", (f.deltaMs >= 0 ? "+" : "") + f.deltaMs + " ms"]);
  if (f.driftPpm !== undefined) rows.push(["drift", f.driftPpm + " ppm"]);
  if (f.extraMs !== undefined) rows.push(["extra delay", f.extraMs + " ms"]);
  if (f.lossRate !== undefined) rows.push(["loss rate", String(f.lossRate)]);
  if (f.step >= 0) rows.push(["scenario step", "faults[" + f.step + "]"]);
  return { title: faultLabel(f), rows: rows, text: f.note || "" };
}
function showTip(tip, ev) {
  if (!tip) { tipEl.style("display", "none"); return; }
  tipEl.selectAll("*").remove();
  tipEl.classed("bad", !!tip.bad);
  tipEl.append("div").attr("class", "tt-title").text(tip.title);
  var tb = tipEl.append("table");
  tip.rows.forEach(function (r) { var tr = tb.append("tr"); tr.append("th").text(r[0]); tr.append("td").text(r[1]); });
  if (tip.text) tipEl.append("div").attr("class", "tt-text").text(tip.text);
  if (tip.also) tipEl.append("div").attr("class", "tt-also").text(tip.also);
  if (tip.foot) tipEl.append("div").attr("class", "tt-foot").text(tip.foot);
  tipEl.style("display", "block");
  var tw = tipEl.node().offsetWidth, th = tipEl.node().offsetHeight;
  var px = ev.clientX + 14, py = ev.clientY + 14;
  if (px + tw > window.innerWidth - 8) px = ev.clientX - tw - 14;
  if (py + th > window.innerHeight - 8) py = ev.clientY - th - 14;
  tipEl.style("left", px + "px").style("top", py + "px");
}
/** What is under the pointer on the canvas: { tip, ref } or null. */
function canvasHit(mx, my) {
  var l = Math.floor((my - top0) / LANE_H);
  if (l < 0 || l >= lanes.length) return null;
  var t = xz.invert(mx), tol = (xz.domain()[1] - xz.domain()[0]) / W * 4;
  var p, i, best = -1, bestD = Infinity;
  if (l === resourceLane) {
    p = lowerBound(WR.t, writeOrder, 0, t - tol);
    for (; p < writeOrder.length && WR.t[writeOrder[p]] <= t + tol; p++) {
      i = writeOrder[p]; var dd = Math.abs(WR.t[i] - t);
      if (dd < bestD) { bestD = dd; best = i; }
    }
    if (best >= 0) return { tip: writeTip(best), ref: "write:" + best };
  }
  var ei = errorsBy[l];
  for (p = 0; p < ei.length; p++) { i = ei[p]; if (Math.abs(E.t[i] - t) <= tol) return { tip: errorTip(i), ref: "error:" + i }; }
  var ai = attemptsBy[l];
  for (p = 0; p < ai.length; p++) { i = ai[p]; if (A.s[i] - tol <= t && t <= A.e[i] + tol) return { tip: attemptTip(i), ref: "attempt:" + i }; }
  var idx = holdsBy[l];
  if (idx.length) {
    var lo = lowerBoundPlain(holdMaxE[l], t - tol);
    for (p = lo; p < idx.length && H.w[idx[p]] <= t + tol; p++) {
      i = idx[p];
      if (H.s[i] - tol <= t && t <= H.e[i] + tol) {
        var d0 = t < H.s[i] ? H.s[i] - t : t > H.e[i] ? t - H.e[i] : 0;
        if (d0 < bestD) { bestD = d0; best = i; }
      }
    }
    if (best >= 0) return { tip: holdTip(best), ref: "hold:" + best };
    for (p = lo; p < idx.length && H.w[idx[p]] <= t + tol; p++) {
      i = idx[p];
      if (H.w[i] <= t && t <= H.s[i]) return { tip: waitTip(i), ref: "wait:" + i };
    }
  }
  // a fault band on this lane
  for (var fi = 0; fi < D.faults.length; fi++) {
    var f = D.faults[fi];
    if (f.lanes.indexOf(l) >= 0 && f.s <= t && t <= faultEnd(f) && !NET_KINDS[f.kind]) return { tip: faultTip(f), ref: "fault:" + fi };
  }
  return null;
}
ov.on("mousemove", function (ev) {
  var d = ev.target && ev.target !== hit.node() && ev.target.parentNode && d3.select(ev.target.parentNode).datum();
  var m = d3.pointer(ev, ov.node());
  var h = canvasHit(m[0], m[1]);
  if (d && typeof d.tip === "function") {
    // A pause or crash band lies over the marks of its lane: show the mark, and the band as context.
    if (d.type === "span" && h && h.ref.indexOf("fault:") !== 0) {
      var t = h.tip, f = d.tip();
      t.also = "meanwhile: " + f.title + (f.text ? " — " + f.text : "");
      showTip(t, ev);
    } else showTip(d.tip(), ev);
    return;
  }
  showTip(h ? h.tip : null, ev);
}).on("mouseleave", function () { showTip(null); });
ov.on("click", function (ev) {
  var m = d3.pointer(ev, ov.node());
  var el = ev.target && ev.target.parentNode;
  var ref = el && el.getAttribute && el.getAttribute("data-ref");
  if (!ref) { var h = canvasHit(m[0], m[1]); ref = h && h.ref; }
  if (ref) focusStepFor(ref);
});

// ---------- zoom ----------
var zoom = d3.zoom().on("zoom", function (ev) {
  xz = ev.transform.rescaleX(x);
  scheduleRedraw();
});
ov.call(zoom).on("dblclick.zoom", null);
var pending = false;
function scheduleRedraw() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(function () { pending = false; redraw(); });
}
function zoomTo(s, e) {
  var full = Math.max(1, D.endUs);
  // zoom.transform does not apply the translate extent: keep the window inside the run.
  var span = Math.min(full, Math.max(20, e - s));
  s = Math.max(0, Math.min(s, full - span));
  var k = Math.min(full / 20, Math.max(1, full / span));
  var tx = ML - x(s) * k;
  ov.transition().duration(450).call(zoom.transform, d3.zoomIdentity.translate(tx, 0).scale(k));
}
d3.select("#zoom-in").on("click", function () { ov.transition().duration(250).call(zoom.scaleBy, 2, [ML + W / 2, 0]); });
d3.select("#zoom-out").on("click", function () { ov.transition().duration(250).call(zoom.scaleBy, 0.5, [ML + W / 2, 0]); });
d3.select("#zoom-reset").on("click", function () { ov.transition().duration(300).call(zoom.transform, d3.zoomIdentity); });

// ---------- highlight and the story's steps ----------
var highlighted = null;
function refSpan(ref) {
  var p = ref.split(":"), kind = p[0], i = +p[1];
  switch (kind) {
    case "hold": return { s: H.s[i], e: H.e[i], l0: H.lane[i], l1: H.lane[i] };
    case "wait": return { s: H.w[i], e: H.s[i], l0: H.lane[i], l1: H.lane[i] };
    case "write": return { s: WR.t[i], e: WR.t[i], l0: resourceLane, l1: resourceLane };
    case "attempt": return { s: A.s[i], e: A.e[i], l0: A.lane[i], l1: A.lane[i] };
    case "error": return { s: E.t[i], e: E.t[i], l0: E.lane[i], l1: E.lane[i] };
    case "note": return { s: D.notes[i].t, e: D.notes[i].t, l0: D.notes[i].lane, l1: D.notes[i].lane };
    case "fault": var f = D.faults[i];
      if (NET_KINDS[f.kind]) return { s: f.s, e: faultEnd(f), l0: -1, l1: -1, row: f.row };
      return { s: f.s, e: faultEnd(f), l0: d3.min(f.lanes), l1: d3.max(f.lanes) };
    case "violation": var v = D.violations[i]; var ls = v.holds.map(function (h) { return H.lane[h]; });
      if (v.writes.length) ls.push(resourceLane);
      return { s: v.s, e: v.e, l0: d3.min(ls), l1: d3.max(ls) };
  }
  return null;
}
function drawHighlight() {
  var sp = highlighted && refSpan(highlighted);
  var data = sp ? [sp] : [];
  hiG.selectAll("rect.hi").data(data).join("rect").attr("class", "hi")
    .attr("x", function (d) { return Math.max(ML - 3, xz(d.s) - 4); })
    .attr("width", function (d) { return Math.max(8, Math.min(ML + W + 3, xz(d.e) + 4) - Math.max(ML - 3, xz(d.s) - 4)); })
    .attr("y", function (d) { return d.l0 < 0 ? MT + (d.row || 0) * NET_ROW : laneY(d.l0) + 1; })
    .attr("height", function (d) { return d.l0 < 0 ? NET_ROW + 4 : laneY(d.l1) - laneY(d.l0) + LANE_H - 2; });
}
function highlight(ref) { highlighted = ref; drawHighlight(); }
var steps = d3.selectAll("#steps li[data-ref]");
steps.on("mouseenter", function () { highlight(this.getAttribute("data-ref")); })
  .on("mouseleave", function () { if (!this.classList.contains("active")) highlight(activeRef); })
  .on("click", function () { activate(this); });
var activeRef = null;
function activate(li) {
  steps.classed("active", false);
  d3.select(li).classed("active", true);
  activeRef = li.getAttribute("data-ref");
  highlight(activeRef);
  var sp = refSpan(activeRef);
  if (sp) {
    var span = Math.max(sp.e - sp.s, 2000);
    zoomTo(sp.s - span * 0.6 - 500, sp.e + span * 0.6 + 500);
  }
}
function focusStepFor(ref) {
  var found = null;
  steps.each(function () { if (!found && this.getAttribute("data-ref") === ref) found = this; });
  highlight(ref);
  activeRef = ref;
  steps.classed("active", false);
  if (found) { d3.select(found).classed("active", true); found.scrollIntoView({ block: "nearest" }); }
}
d3.selectAll("[data-violation]").on("click", function () {
  var ref = "violation:" + this.getAttribute("data-violation");
  focusStepFor(ref);
  var sp = refSpan(ref), span = Math.max(sp.e - sp.s, 2000);
  zoomTo(sp.s - span * 2 - 500, sp.e + span * 2 + 500);
  document.getElementById("timeline-section").scrollIntoView({ block: "start", behavior: "smooth" });
});

// ---------- clocks ----------
var CW = { h: D.clocks.offsetsUs.every(function (o) { return o.every(function (v) { return v === 0; }); }) ? 90 : 190, mt: 10, mb: 24 };
var clocksSvg = d3.select("#clocks").append("svg");
var clockG = clocksSvg.append("g"), clockAx = clocksSvg.append("g").attr("class", "axis"), clockAy = clocksSvg.append("g").attr("class", "axis");
var clockClip = clocksSvg.append("defs").append("clipPath").attr("id", "clockclip").append("rect");
clockG.attr("clip-path", "url(#clockclip)");
var C = D.clocks;
var clockSeries = C.lanes.map(function (l, j) { return { l: l, id: laneId(l), off: C.offsetsUs[j], flat: C.offsetsUs[j].every(function (v) { return v === 0; }) }; });
var moving = clockSeries.filter(function (s) { return !s.flat; });
var clockColor = d3.scaleOrdinal(["#d62728", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf"]).domain(moving.map(function (s) { return s.id; }));
var yC;
function drawClocks() {
  var fullW = W + ML + MR;
  clocksSvg.attr("width", fullW).attr("height", CW.h);
  clockClip.attr("x", ML).attr("y", 0).attr("width", W).attr("height", CW.h);
  var ext = d3.extent([0].concat.apply([0], C.offsetsUs)).map(function (v) { return v / 1000; });
  if (ext[0] === ext[1]) ext = [-1, 1];
  yC = d3.scaleLinear().domain(ext).nice().range([CW.h - CW.mb, CW.mt]);
  var line = d3.line().x(function (d) { return xz(d[0]); }).y(function (d) { return yC(d[1] / 1000); }).curve(d3.curveStepAfter);
  var series = clockSeries.map(function (s) { return { s: s, pts: C.t.map(function (t, k) { return [t, s.off[k]]; }) }; });
  clockG.selectAll("path.clock").data(series).join("path").attr("class", "clock")
    .attr("fill", "none").attr("stroke-width", function (d) { return d.s.flat ? 1 : 2; })
    .attr("stroke", function (d) { return d.s.flat ? "#b0b7bf" : clockColor(d.s.id); })
    .attr("d", function (d) { return line(d.pts); })
    .each(function (d) { d.tip = null; });
  var jumps = D.faults.filter(function (f) { return f.kind === "clock-jump"; });
  clockG.selectAll("line.jump").data(jumps).join("line").attr("class", "jump").attr("x1", function (f) { return xz(f.s); }).attr("x2", function (f) { return xz(f.s); })
    .attr("y1", CW.mt).attr("y2", CW.h - CW.mb).attr("stroke", "#8e44ad").attr("stroke-dasharray", "4,3");
  var tv = xz.ticks(Math.max(2, Math.floor(W / 110))), step = tv.length > 1 ? tv[1] - tv[0] : 1;
  clockAx.attr("transform", "translate(0," + (CW.h - CW.mb) + ")").call(d3.axisBottom(xz).ticks(Math.max(2, Math.floor(W / 110))).tickFormat(tickFormatFor(step)).tickSizeOuter(0));
  clockAy.attr("transform", "translate(" + ML + ",0)").call(d3.axisLeft(yC).ticks(5).tickFormat(function (v) { return v + " ms"; }));
  var leg = d3.select("#clocks-legend").selectAll("span.key").data(moving.length ? moving : [{ id: "every process", flat: true }]).join(function (en) {
    var s = en.append("span").attr("class", "key"); s.append("i"); s.append("b"); return s;
  });
  leg.select("i").style("background", function (d) { return d.flat ? "#b0b7bf" : clockColor(d.id); });
  leg.select("b").text(function (d) { return d.flat ? "every process: 0 ms (accurate clocks)" : d.id; });
  if (moving.length && moving.length < clockSeries.length) {
    d3.select("#clocks-legend").selectAll("span.rest").data([0]).join("span").attr("class", "key rest").text("grey: the other " + (clockSeries.length - moving.length) + " processes, accurate");
  }
}
clocksSvg.on("mousemove", function (ev) {
  var m = d3.pointer(ev); var t = xz.invert(m[0]);
  var k = Math.max(0, d3.bisectRight(C.t, t) - 1);
  if (!C.t.length || m[0] < ML) { showTip(null); return; }
  var rows = clockSeries.filter(function (s) { return !s.flat; }).map(function (s) { return [s.id, fmtDur(s.off[k]) ]; });
  if (!rows.length) rows = [["every process", "0 (accurate)"]];
  showTip({ title: "wall-clock offsets at " + fmtT(C.t[k]), rows: rows }, ev);
}).on("mouseleave", function () { showTip(null); });

// ---------- latency ----------
var LW = { h: 190, mt: 10, mb: 24 };
var latWrap = d3.select("#latency");
var latCanvas = latWrap.append("canvas").attr("class", "layer");
var latSvg = latWrap.append("svg").attr("class", "layer overlay");
var latCtx = latCanvas.node().getContext("2d");
var latAx = latSvg.append("g").attr("class", "axis"), latAy = latSvg.append("g").attr("class", "axis"), latLines = latSvg.append("g");
var latMaxUs = 0; for (var q = 0; q < nHolds; q++) latMaxUs = Math.max(latMaxUs, H.s[q] - H.w[q]);
var yL;
function drawLatency() {
  var fullW = W + ML + MR;
  latWrap.style("height", LW.h + "px");
  latSvg.attr("width", fullW).attr("height", LW.h);
  latCanvas.attr("width", Math.round(fullW * dpr)).attr("height", Math.round(LW.h * dpr)).style("width", fullW + "px").style("height", LW.h + "px");
  var hi = Math.max(D.latency.targetMs * 2, latMaxUs / 1000 * 1.3);
  yL = d3.scaleLog().domain([0.1, hi]).range([LW.h - LW.mb, LW.mt]).clamp(true);
  var a = xz.domain()[0], b = xz.domain()[1], k = W / (b - a);
  latCtx.setTransform(dpr, 0, 0, dpr, 0, 0);
  latCtx.clearRect(0, 0, fullW, LW.h);
  var seen = new Uint8Array((W + 2) * (LW.h + 2));
  latCtx.fillStyle = "rgba(59,111,182,0.75)";
  for (var i = 0; i < nHolds; i++) {
    var t = H.s[i];
    if (t < a || t > b) continue;
    var px = Math.round((t - a) * k), py = Math.round(yL(Math.max(0.1, (t - H.w[i]) / 1000)));
    var key = px * (LW.h + 2) + py;
    if (seen[key]) continue;
    seen[key] = 1;
    latCtx.fillStyle = H.bad[i] ? BAD : (t - H.w[i]) / 1000 > D.latency.targetMs ? "rgba(224,123,0,0.85)" : "rgba(59,111,182,0.75)";
    latCtx.fillRect(ML + px - 1.5, py - 1.5, 3, 3);
  }
  var lines = [{ v: D.latency.targetMs, label: "target " + D.latency.targetMs + " ms", cls: "target" }];
  if (D.latency.p50Ms !== null) lines.push({ v: D.latency.p50Ms, label: "p50 " + fmtDur(D.latency.p50Ms * 1000), cls: "p50" });
  if (D.latency.p99Ms !== null) lines.push({ v: D.latency.p99Ms, label: "p99 " + fmtDur(D.latency.p99Ms * 1000), cls: "p99" });
  var lg = latLines.selectAll("g.ql").data(lines).join(function (en) { var g = en.append("g").attr("class", function (d) { return "ql " + d.cls; }); g.append("line"); g.append("text"); return g; });
  lg.select("line").attr("x1", ML).attr("x2", ML + W).attr("y1", function (d) { return yL(Math.max(0.1, d.v)); }).attr("y2", function (d) { return yL(Math.max(0.1, d.v)); });
  lg.select("text").attr("x", function (d, i) { return ML + W - 4 - i * 0; }).attr("y", function (d, i) { return yL(Math.max(0.1, d.v)) + (d.cls === "p50" ? 12 : -4); }).attr("text-anchor", "end").text(function (d) { return d.label; });
  var tv = xz.ticks(Math.max(2, Math.floor(W / 110))), step = tv.length > 1 ? tv[1] - tv[0] : 1;
  latAx.attr("transform", "translate(0," + (LW.h - LW.mb) + ")").call(d3.axisBottom(xz).ticks(Math.max(2, Math.floor(W / 110))).tickFormat(tickFormatFor(step)).tickSizeOuter(0));
  latAy.attr("transform", "translate(" + ML + ",0)").call(d3.axisLeft(yL).ticks(5, "~g").tickFormat(function (v) { var s = d3.format("~g")(v); return /^10*$|^0\.0*1$/.test(String(v)) ? s + " ms" : ""; }));
}
latSvg.on("mousemove", function (ev) {
  var m = d3.pointer(ev); var t = xz.invert(m[0]); var tol = (xz.domain()[1] - xz.domain()[0]) / W * 3;
  var best = -1, bd = Infinity;
  for (var l = 0; l < lanes.length; l++) {
    var idx = holdsBy[l]; var p = lowerBound(H.s, idx, 0, t - tol);
    for (; p < idx.length && H.s[idx[p]] <= t + tol; p++) {
      var i = idx[p]; var dy = Math.abs(yL(Math.max(0.1, (H.s[i] - H.w[i]) / 1000)) - m[1]);
      if (dy < bd && dy < 6) { bd = dy; best = i; }
    }
  }
  if (best < 0) { showTip(null); return; }
  showTip({ title: laneId(H.lane[best]) + " acquired " + lockName(H.lock[best]) + " in " + fmtDur(H.s[best] - H.w[best]), rows: [["invoked", fmtT(H.w[best])], ["granted", fmtT(H.s[best])], ["grant", grantName(best)]], bad: H.bad[best] === 1 }, ev);
}).on("mouseleave", function () { showTip(null); });

// ---------- draw ----------
function redraw() {
  drawCanvas();
  drawSvg();
  drawClocks();
  drawLatency();
  stats.redraws++;
  var dm = xz.domain();
  stats.domainUs = [dm[0], dm[1]];
  root.attr("data-holds-drawn", stats.holdsDrawn).attr("data-violations-drawn", stats.violationsDrawn).attr("data-domain-us", Math.round(dm[0]) + "," + Math.round(dm[1]));
  d3.select("#zoom-state").text("showing " + fmtT(dm[0]) + " – " + fmtT(dm[1]) + " (" + fmtDur(dm[1] - dm[0]) + ")");
}
layout();
redraw();
stats.drawMs = performance.now();
document.body.setAttribute("data-drawn", "1");
var resizePending = false;
window.addEventListener("resize", function () {
  if (resizePending) return;
  resizePending = true;
  requestAnimationFrame(function () { resizePending = false; layout(); redraw(); });
});
d3.select("#copy-replay").on("click", function () {
  var code = document.getElementById("replay-command");
  var range = document.createRange(); range.selectNodeContents(code);
  var sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
  try { document.execCommand("copy"); d3.select(this).text("copied"); } catch (e) { d3.select(this).text("press Ctrl+C"); }
});
})();
`;
