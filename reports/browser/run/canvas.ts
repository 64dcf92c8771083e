/**
 * The timeline's dense marks on a canvas, culled to the visible window and merged per
 * pixel: holds (with the believed lease under them and the lapsed part on top),
 * waits, failed acquires, failed operations and the writes at the resource.
 */
import {
  A,
  BAD,
  E,
  H,
  RO,
  regOpsBy,
  str,
  LANE_H,
  LAPSED,
  ML,
  S,
  WR,
  attemptsBy,
  dpr,
  errorsBy,
  grantName,
  holdMaxE,
  holdMaxWait,
  holdsBy,
  laneY,
  lanes,
  lockColor,
  lowerBound,
  lowerBoundPlain,
  plotH,
  MR,
  MT,
  resourceLane,
  stats,
  totalH,
  writeOrder,
} from "./model.js";

/** A hold narrower than this is drawn this wide, so a short hold never vanishes at whole-run zoom. */
const HOLD_PX_MIN = 2;
/**
 * Above this many visible holds per pixel of width on one lane, the lane is drawn as a
 * density strip (each pixel column shaded by the share of its time the client held
 * the lock) instead of bars that would merge into one solid hold.
 */
const DENSITY_HOLDS_PER_PX = 0.25;

/** The visible window: times a..b (µs), k pixels per µs, X(t) the pixel of time t. */
interface View {
  a: number;
  b: number;
  k: number;
  W: number;
  X: (t: number) => number;
}

export function drawCanvas(ctx: CanvasRenderingContext2D): void {
  const W = S.W;
  const [a, b] = S.xz.domain() as [number, number];
  const k = W / (b - a);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W + ML + MR, totalH);
  ctx.save();
  ctx.beginPath();
  ctx.rect(ML, MT, W, plotH);
  ctx.clip();
  ctx.font = "11px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  const v: View = { a, b, k, W, X: (t: number) => ML + (t - a) * k };
  const held = drawHoldLanes(ctx, v);
  drawRegisterOps(ctx, v.X, a, b);
  const nA = drawAttempts(ctx, v);
  const nWr = drawResourceWrites(ctx, v);
  ctx.restore();
  stats.holdsDrawn = held.holds;
  stats.denseLanes = held.dense;
  stats.waitsDrawn = held.waits;
  stats.attemptsDrawn = nA;
  stats.writesDrawn = nWr;
}

/** Every lane's holds and waits (a dense lane as a density strip); what was drawn, counted. */
function drawHoldLanes(ctx: CanvasRenderingContext2D, v: View): { holds: number; waits: number; dense: number } {
  const out = { holds: 0, waits: 0, dense: 0 };
  for (let l = 0; l < lanes.length; l++) {
    if (!holdsBy[l]!.length) continue;
    const lo = lowerBoundPlain(holdMaxE[l]!, v.a); // holds before it (and their waits) end before the view
    const dense = densityStrip(ctx, l, lo, v.a, v.b, v.k);
    if (dense >= 0) {
      out.holds += dense;
      out.dense++;
      continue;
    }
    const drawn = drawLaneBars(ctx, l, lo, v);
    out.holds += drawn.holds;
    out.waits += drawn.waits;
  }
  return out;
}

/** Lane l's holds as bars, each after its wait; sub-pixel ones merged per pixel column. */
function drawLaneBars(ctx: CanvasRenderingContext2D, l: number, lo: number, v: View): { holds: number; waits: number } {
  const { a, b, X, W } = v;
  const idx = holdsBy[l]!;
  const y = laneY(l);
  const mid = y + LANE_H / 2;
  let holds = 0;
  let waits = 0;
  let lastHoldPx = -1;
  let lastWaitPx = -1;
  for (let p = lo; p < idx.length; p++) {
    const i = idx[p]!;
    if (H.w[i]! > b && H.s[i]! > b + holdMaxWait[l]!) break;
    if (H.w[i]! > b) continue;
    // wait: from the acquire's invoke to the grant
    if (H.s[i]! > H.w[i]! && H.s[i]! >= a && H.w[i]! <= b) {
      const wx0 = Math.max(ML, X(H.w[i]!));
      const wx1 = Math.min(ML + W, X(H.s[i]!));
      if (wx1 - wx0 >= 1 || Math.floor(wx0) !== lastWaitPx) {
        ctx.fillStyle = "#9aa3ad";
        ctx.fillRect(wx0, mid - 1, Math.max(1, wx1 - wx0), 2);
        lastWaitPx = Math.floor(wx0);
      }
      waits++;
    }
    if (H.e[i]! < a || H.s[i]! > b) continue;
    holds++;
    lastHoldPx = drawHoldBar(ctx, i, y, v, lastHoldPx);
  }
  return { holds, waits };
}

/** One hold's bar, its believed lease and lapsed part, and its label; returns the last pixel column it covered. */
function drawHoldBar(ctx: CanvasRenderingContext2D, i: number, y: number, v: View, lastHoldPx: number): number {
  const { X, W } = v;
  const x0 = X(H.s[i]!);
  const x1 = X(H.e[i]!);
  const cx0 = Math.max(ML - 1, x0);
  const cx1 = Math.min(ML + W + 1, x1);
  const bad = H.bad[i] === 1;
  if (cx1 - cx0 < HOLD_PX_MIN) {
    // Sub-pixel holds: one whole-pixel bar per pixel column, never thinner than HOLD_PX_MIN.
    const px = Math.floor(cx0);
    if (px <= lastHoldPx && !bad) return lastHoldPx;
    ctx.fillStyle = bad ? BAD : lockColor(H.lock[i]!);
    ctx.fillRect(px, y + 5, HOLD_PX_MIN, LANE_H - 10);
    return px + HOLD_PX_MIN - 1;
  }
  ctx.fillStyle = lockColor(H.lock[i]!);
  ctx.fillRect(cx0, y + 5, cx1 - cx0, LANE_H - 10);
  // the lease the client believed it had: a dark rule under the bar from the grant to grant + validity
  if (H.val[i]! >= 0) {
    const vx1 = Math.min(ML + W + 1, X(H.s[i]! + H.val[i]! * 1000), cx1);
    ctx.fillStyle = "#1d2430";
    if (vx1 > cx0) ctx.fillRect(cx0, y + LANE_H - 5, vx1 - cx0, 2);
  }
  // acting after its lease had lapsed by its own clock: a magenta top edge from the lapse on
  if (H.st[i] === 1) {
    const lx0 = H.lap[i]! >= 0 ? Math.max(cx0, X(H.lap[i]!)) : cx0;
    ctx.fillStyle = LAPSED;
    ctx.fillRect(lx0, y + 5, Math.max(2, cx1 - lx0), 3);
  }
  const label = H.tok[i]! >= 0 ? "token " + H.tok[i] : grantName(i);
  if (cx1 - cx0 > label.length * 6.2 + 8) {
    ctx.fillStyle = "#fff";
    ctx.fillText(label, Math.max(cx0, ML) + 4, LANE_H >= 30 ? y + 13 : y + LANE_H / 2); // upper half: a pause's label may take the lower
  }
  return Math.floor(cx1);
}

/** Failed or unknown acquire attempts (an orange line ending in a cross) and failed operations (a triangle). */
function drawAttempts(ctx: CanvasRenderingContext2D, v: View): number {
  const { a, b, X, W } = v;
  let nA = 0;
  for (let l = 0; l < lanes.length; l++) {
    for (const i of attemptsBy[l]!) {
      if (A.e[i]! < a || A.s[i]! > b) continue;
      nA++;
      const y = laneY(l) + LANE_H / 2;
      const ax0 = Math.max(ML, X(A.s[i]!));
      const ax1 = Math.min(ML + W, X(A.e[i]!));
      ctx.fillStyle = "#e07b00";
      ctx.fillRect(ax0, y - 1, Math.max(1, ax1 - ax0), 2);
      if (A.e[i]! <= b) cross(ctx, X(A.e[i]!), y, 4, A.out[i] === 0 ? "#e07b00" : "#8a8a8a");
    }
    for (const i of errorsBy[l]!) {
      if (E.t[i]! < a || E.t[i]! > b) continue;
      const ex = X(E.t[i]!);
      const y = laneY(l);
      ctx.fillStyle = E.out[i] === 0 ? "#e07b00" : "#8a8a8a";
      ctx.beginPath();
      ctx.moveTo(ex, y + 3);
      ctx.lineTo(ex - 4, y + 10);
      ctx.lineTo(ex + 4, y + 10);
      ctx.closePath();
      ctx.fill();
    }
  }
  return nA;
}

/** Writes at the resource: a tick up for accepted, a cross for rejected, merged per pixel. */
function drawResourceWrites(ctx: CanvasRenderingContext2D, v: View): number {
  if (resourceLane < 0) return 0;
  const { a, b, X } = v;
  const y = laneY(resourceLane);
  let nWr = 0;
  let lastPx = -1;
  let lastOk = -1;
  for (let p = lowerBound(WR.t, writeOrder, a); p < writeOrder.length; p++) {
    const i = writeOrder[p]!;
    if (WR.t[i]! > b) break;
    nWr++;
    const wx = X(WR.t[i]!);
    const wpx = Math.floor(wx);
    const isBad = WR.bad[i] === 1;
    if (wpx === lastPx && WR.ok[i] === lastOk && !isBad) continue;
    lastPx = wpx;
    lastOk = WR.ok[i]!;
    if (WR.ok[i] === 1) {
      ctx.fillStyle = isBad ? BAD : "#2e7d32";
      ctx.fillRect(wx - (isBad ? 1.5 : 0.75), y + 5, isBad ? 3 : 1.5, LANE_H - 10);
    } else {
      cross(ctx, wx, y + LANE_H / 2, 5, isBad ? BAD : "#e07b00");
    }
  }
  return nWr;
}

/**
 * Draws lane l as a density strip if it has too many visible holds for bars; returns
 * how many holds it covered, or -1 (not dense: draw bars).
 */
function densityStrip(ctx: CanvasRenderingContext2D, l: number, lo: number, a: number, b: number, k: number): number {
  const idx = holdsBy[l]!;
  const W = S.W;
  let n = 0;
  const limit = W * DENSITY_HOLDS_PER_PX;
  for (let p = lo; p < idx.length && n <= limit; p++) {
    const i = idx[p]!;
    if (H.s[i]! > b) break;
    if (H.e[i]! >= a) n++;
  }
  if (n <= limit) return -1;
  // Share of each pixel column's time under a hold, and whether a violating hold touches it.
  const cover = new Float64Array(W + 1);
  const badPx = new Uint8Array(W + 1);
  let count = 0;
  for (let p = lo; p < idx.length; p++) {
    const i = idx[p]!;
    if (H.s[i]! > b) break;
    if (H.e[i]! < a) continue;
    count++;
    const x0 = Math.max(0, (H.s[i]! - a) * k);
    const x1 = Math.min(W, (H.e[i]! - a) * k);
    for (let px = Math.floor(x0); px <= Math.min(W, Math.floor(x1)); px++) {
      const from = Math.max(x0, px);
      const to = Math.min(x1, px + 1);
      if (to > from) cover[px]! += to - from;
      if (H.bad[i] === 1) badPx[px] = 1;
    }
  }
  const y = laneY(l);
  const color = lockColor(H.lock[idx[lo] ?? 0] ?? 0);
  for (let px = 0; px <= W; px++) {
    const c = Math.min(1, cover[px]!);
    if (c <= 0) continue;
    ctx.globalAlpha = 0.15 + 0.85 * c;
    ctx.fillStyle = badPx[px] ? BAD : color;
    ctx.fillRect(ML + px, y + 5, 1, LANE_H - 10);
  }
  ctx.globalAlpha = 1;
  // Say so on the lane: this is a density, not one hold.
  ctx.fillStyle = "#1d2430";
  ctx.font = "10px system-ui, sans-serif";
  ctx.fillText(`${count} holds: shade = share of time held (zoom in for each)`, ML + 4, y + LANE_H - 3);
  ctx.font = "11px system-ui, sans-serif";
  return count;
}

function cross(ctx: CanvasRenderingContext2D, cx: number, cy: number, r: number, color: string): void {
  ctx.strokeStyle = color;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(cx - r, cy - r);
  ctx.lineTo(cx + r, cy + r);
  ctx.moveTo(cx + r, cy - r);
  ctx.lineTo(cx - r, cy + r);
  ctx.stroke();
}

const REGISTER_FILL = ["#4a78c2", "#9a9a9a", "#e07b00"];

/**
 * A register history's operations: a bar from invoke to reply on the client's lane
 * (blue ok, grey failed, orange outcome unknown; no reply runs to the window's edge),
 * labelled with the op and its values where it fits.
 */
function drawRegisterOps(ctx: CanvasRenderingContext2D, X: (t: number) => number, a: number, b: number): void {
  let n = 0;
  for (let l = 0; l < lanes.length; l++) {
    const y = laneY(l);
    for (const i of regOpsBy[l]!) {
      const open = RO.e[i]! < 0;
      if (RO.s[i]! > b || (!open && RO.e[i]! < a)) continue;
      n++;
      const x0 = Math.max(ML - 1, X(RO.s[i]!));
      const x1 = open ? ML + S.W : Math.min(ML + S.W + 1, X(RO.e[i]!));
      const w = Math.max(2, x1 - x0);
      ctx.fillStyle = REGISTER_FILL[RO.out[i]!] ?? REGISTER_FILL[0]!;
      ctx.globalAlpha = open ? 0.45 : 0.85;
      ctx.fillRect(x0, y + 7, w, LANE_H - 14);
      ctx.globalAlpha = 1;
      const label = str(RO.txt[i]!);
      if (w > label.length * 6.2 + 8) {
        ctx.fillStyle = "#fff";
        ctx.fillText(label, x0 + 4, y + LANE_H / 2 + 4);
      }
    }
  }
  stats.regOpsDrawn = n;
}
