/** Times as the pages print them: one unit per magnitude, seconds on axes. */

/**
 * An imported history without times: a "time" is an event's position in its file, said as
 * #n (a point) and "n positions" (a span). Set once, before the first draw, from the page's data.
 */
let positions = false;

export function showTimesAsPositions(on: boolean): void {
  positions = on;
}

/** A duration in µs: "850 µs", "12.5 ms", "3.2 s". */
export function fmtDur(us: number): string {
  if (positions) return `${Math.round(us)} position${Math.round(us) === 1 ? "" : "s"}`;
  const a = Math.abs(us);
  if (a >= 1e6) return +(us / 1e6).toFixed(a >= 1e7 ? 2 : 3) + " s";
  if (a >= 1e3) return +(us / 1e3).toFixed(3) + " ms";
  return Math.round(us) + " µs";
}

/** A point in true time, µs from the start, in seconds with up to µs precision. */
export function fmtT(us: number): string {
  if (positions) return `#${Math.round(us)}`;
  return (us / 1e6).toFixed(6).replace(/0{1,3}$/, "") + " s";
}

/** Axis labels in seconds with as many decimals as the tick step needs (positions: #n). */
export function tickFormatFor(stepUs: number): (us: number) => string {
  if (positions) return (us: number) => (Number.isInteger(us) ? `#${us}` : "");
  const dec = Math.max(0, Math.min(6, -Math.floor(Math.log10(stepUs / 1e6) + 1e-9)));
  return (us: number) => (us / 1e6).toFixed(dec) + " s";
}
