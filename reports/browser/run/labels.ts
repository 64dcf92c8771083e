/** Placing labels along one axis so that none prints over another. Pure, so Node tests it. */

/**
 * Baselines (px) for labels that want to sit at `want`: pushed down until no two are closer
 * than gapPx, then back up to stay above hi, never above lo. A p99 just under the target, or
 * a p50 equal to the p99, would otherwise print one label over another.
 */
export function spreadLabels(want: readonly number[], gapPx: number, lo: number, hi: number): number[] {
  const order = want.map((_, i) => i).sort((a, b) => want[a]! - want[b]!);
  const y = want.slice();
  let prev = lo - gapPx;
  for (const i of order) {
    y[i] = Math.max(want[i]!, prev + gapPx);
    prev = y[i]!;
  }
  let next = hi + gapPx;
  for (let k = order.length - 1; k >= 0; k--) {
    const i = order[k]!;
    y[i] = Math.max(lo, Math.min(y[i]!, next - gapPx));
    next = y[i]!;
  }
  return y;
}
