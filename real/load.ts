// The machine's load while real runs ran: a real run's rates (grants, how late a fault
// fired) depend on it, so every run records it (results.json) and a batch sums it up
// (summary.json, the sim-vs-real table).
import { availableParallelism, loadavg } from "node:os";

/** The 1-minute load average now, to two decimals. */
export function oneMinuteLoad(): number {
  return Math.round((loadavg()[0] ?? 0) * 100) / 100;
}

/** Load figures of a run or a batch: the 1-minute average's samples summed up, and the cores. */
export interface LoadFigures {
  cores: number;
  oneMinute: { min: number; mean: number; max: number };
}

export function loadFigures(samples: readonly number[]): LoadFigures {
  const xs = samples.length ? samples : [0];
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return { cores: availableParallelism(), oneMinute: { min: Math.min(...xs), mean: Math.round(mean * 100) / 100, max: Math.max(...xs) } };
}

/** "load 13.2–14.1 (mean 13.6) on 2 cores", or "load 13.2 on 2 cores" when it did not move. */
export function loadText(l: LoadFigures): string {
  const m = l.oneMinute;
  return m.min === m.max ? `load ${m.min} on ${l.cores} cores` : `load ${m.min}–${m.max} (mean ${m.mean}) on ${l.cores} cores`;
}
