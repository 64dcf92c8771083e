/**
 * Work time: how long a client works between its read and its write, per hold. A plain
 * number is that many ms every time (the old form, drawing no randomness, so existing
 * histories are unchanged); a distribution is drawn afresh for every hold from the
 * client's own seeded stream. The exponential is bounded: a draw above maxMs is held
 * to maxMs (one draw per hold whatever the value, so a draw never shifts the next).
 */
export type WorkDist =
  { dist: "fixed"; ms: number } | { dist: "uniform"; minMs: number; maxMs: number } | { dist: "exponential"; meanMs: number; maxMs: number };

export type WorkTime = number | WorkDist;

export const WORK_DISTS = ["fixed", "uniform", "exponential"] as const;

/** The fields each distribution takes, besides `dist`. */
export const WORK_DIST_FIELDS: Record<WorkDist["dist"], readonly string[]> = {
  fixed: ["ms"],
  uniform: ["minMs", "maxMs"],
  exponential: ["meanMs", "maxMs"],
};

/** Does drawing this work time consume randomness? (A number or a fixed draw does not.) */
export function isRandomWorkTime(w: WorkTime): boolean {
  return typeof w !== "number" && w.dist !== "fixed";
}

/**
 * One draw, in ms kept to whole µs (the simulator's time unit). `u` gives uniform
 * numbers in [0, 1): the simulator's Rng or real mode's seeded generator.
 */
export function drawWorkMs(w: WorkTime, u: () => number): number {
  if (typeof w === "number") return w;
  switch (w.dist) {
    case "fixed":
      return w.ms;
    case "uniform":
      return toUs(w.minMs + u() * (w.maxMs - w.minMs));
    case "exponential":
      // Inverse CDF; 1 - u is in (0, 1], so the log is finite.
      return toUs(Math.min(w.maxMs, -w.meanMs * Math.log(1 - u())));
  }
}

/** The mean of a draw: for the bounded exponential, mean × (1 − e^(−max/mean)). */
export function workTimeMeanMs(w: WorkTime): number {
  if (typeof w === "number") return w;
  switch (w.dist) {
    case "fixed":
      return w.ms;
    case "uniform":
      return (w.minMs + w.maxMs) / 2;
    case "exponential":
      return w.meanMs * (1 - Math.exp(-w.maxMs / w.meanMs));
  }
}

/** Every time in it passed through `scale` (real mode's --time-scale). */
export function scaleWorkTime(w: WorkTime, scale: (ms: number) => number): WorkTime {
  if (typeof w === "number") return scale(w);
  switch (w.dist) {
    case "fixed":
      return { dist: "fixed", ms: scale(w.ms) };
    case "uniform":
      return { dist: "uniform", minMs: scale(w.minMs), maxMs: scale(w.maxMs) };
    case "exponential":
      return { dist: "exponential", meanMs: scale(w.meanMs), maxMs: scale(w.maxMs) };
  }
}

/** Short text for reports and diffs: `20`, `uniform 10–200 ms`, `exponential mean 50 ms, max 2000 ms`. */
export function describeWorkTime(w: WorkTime): string {
  if (typeof w === "number") return String(w);
  switch (w.dist) {
    case "fixed":
      return `fixed ${w.ms} ms`;
    case "uniform":
      return `uniform ${w.minMs}–${w.maxMs} ms`;
    case "exponential":
      return `exponential mean ${w.meanMs} ms, max ${w.maxMs} ms`;
  }
}

function toUs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
