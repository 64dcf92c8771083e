/**
 * Wire format of the data a page embeds: numeric columns shrink to a constant
 * ({ c: value, n: length }) or to deltas ({ d: [first, diff, ...] }) when that is
 * shorter than the plain list; anything else passes through. Holds' end and wait
 * times travel as durations (end - start, start - wait), which are short numbers.
 *
 * UNPACK_JS is the decoder the page runs; the unit tests run the same source.
 */
import type { RunView } from "./run-view.js";

type Packed = number[] | { c: number; n: number } | { d: number[] };

export function packColumn(col: readonly number[]): Packed {
  if (col.length > 1 && col.every((v) => v === col[0])) return { c: col[0]!, n: col.length };
  if (col.length < 3) return col.slice();
  const d: number[] = new Array(col.length);
  d[0] = col[0]!;
  for (let i = 1; i < col.length; i++) d[i] = col[i]! - col[i - 1]!;
  return JSON.stringify(d).length + 6 < JSON.stringify(col).length ? { d } : col.slice();
}

const COLUMN_GROUPS = ["holds", "attempts", "errors", "writes"] as const;

/** The RunView as embedded in the page (see UNPACK_JS for the inverse). */
export function packView(view: RunView): unknown {
  const out: Record<string, unknown> = { ...view };
  for (const g of COLUMN_GROUPS) {
    const cols = { ...(view[g] as unknown as Record<string, number[]>) };
    if (g === "holds") {
      cols.e = cols.e!.map((e, i) => e - cols.s![i]!);
      cols.w = cols.w!.map((w, i) => cols.s![i]! - w);
    }
    const packed: Record<string, Packed> = {};
    for (const [k, v] of Object.entries(cols)) packed[k] = packColumn(v);
    out[g] = packed;
  }
  out.packed = 1;
  return out;
}

/** Browser-side inverse of packView: `unpackView(data)` restores the RunView in place. */
export const UNPACK_JS = String.raw`function unpackColumn(p) {
  if (Array.isArray(p)) return p;
  if (p && typeof p.c === "number") { var a = new Array(p.n); for (var i = 0; i < p.n; i++) a[i] = p.c; return a; }
  var d = p.d, out = new Array(d.length), acc = 0;
  for (var j = 0; j < d.length; j++) { acc += d[j]; out[j] = acc; }
  return out;
}
function unpackView(v) {
  if (!v.packed) return v;
  ["holds", "attempts", "errors", "writes"].forEach(function (g) {
    Object.keys(v[g]).forEach(function (k) { v[g][k] = unpackColumn(v[g][k]); });
  });
  var H = v.holds;
  for (var i = 0; i < H.s.length; i++) { H.e[i] = H.s[i] + H.e[i]; H.w[i] = H.s[i] - H.w[i]; }
  delete v.packed;
  return v;
}`;
