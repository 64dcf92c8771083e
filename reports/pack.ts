/**
 * Wire format of the data a page embeds: numeric columns shrink to a constant
 * ({ c: value, n: length }) or to deltas ({ d: [first, diff, ...] }) when that is
 * shorter than the plain list; anything else passes through. Holds' end and wait
 * times travel as durations (end - start, start - wait), which are short numbers.
 *
 * reports/browser/unpack.ts is the decoder the page runs; the unit tests import it.
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

/** The RunView as embedded in the page (reports/browser/unpack.ts is the inverse). */
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
