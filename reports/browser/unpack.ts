/**
 * The inverse of reports/pack.ts, as the page runs it: packed columns ({ c, n } for a
 * constant, { d } for deltas) back to plain lists, holds' end and wait times from
 * durations back to times. The unit tests import this same module.
 */
export type Packed = number[] | { c: number; n: number } | { d: number[] };

export function unpackColumn(p: Packed): number[] {
  if (Array.isArray(p)) return p;
  if ("c" in p) {
    const a = new Array<number>(p.n);
    for (let i = 0; i < p.n; i++) a[i] = p.c;
    return a;
  }
  const d = p.d;
  const out = new Array<number>(d.length);
  let acc = 0;
  for (let j = 0; j < d.length; j++) {
    acc += d[j]!;
    out[j] = acc;
  }
  return out;
}

const GROUPS = ["holds", "attempts", "errors", "writes"] as const;

/** Restores the view in place and returns it. */
export function unpackView<T>(v: T): T {
  const o = v as unknown as Record<string, unknown> & { packed?: number };
  if (!o.packed) return v;
  for (const g of GROUPS) {
    const cols = o[g] as Record<string, Packed>;
    for (const k of Object.keys(cols)) cols[k] = unpackColumn(cols[k]!);
  }
  const H = o.holds as Record<string, number[]>;
  const s = H.s!,
    e = H.e!,
    w = H.w!;
  for (let i = 0; i < s.length; i++) {
    e[i] = s[i]! + e[i]!;
    w[i] = s[i]! - w[i]!;
  }
  delete o.packed;
  return v;
}
