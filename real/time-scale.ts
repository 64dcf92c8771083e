// --time-scale: shrink (or stretch) a scenario's story times so a real run takes less wall
// time. Scaled: the run's length, client start times, the workload's TTL, wait, work,
// think, extension and renewal times, and every fault's time, delay and duration, plus the
// liveness bound. Not scaled: the design's mechanics (request timeouts, retry delays,
// node-redlock's drift and retry settings) and the storage's socket timeout — real
// loopback latency and scheduling noise do not shrink, and a 10 ms retry loop at 2 ms
// would only load the machine. The factor and the lists go into results.json.
import { InputError } from "../sim/errors.js";
import type { Scenario } from "../scenarios/schema.js";
import { scaleWorkTime } from "../sim/work-time.js";

export const SCALED_FIELDS = [
  "durationMs",
  "clients[].startMs",
  "clients[].workMs",
  "workload.ttlMs",
  "workload.waitMs",
  "workload.workMs",
  "workload.thinkMs",
  "workload.thinkJitterMs",
  "workload.extendTtlMs",
  "workload.renewEveryMs",
  "faults[].atMs",
  "faults[].delayMs",
  "faults[].durationMs",
  // A clock jump is part of the story (it must still outrun the scaled TTL it expires).
  "faults[].deltaMs",
  "checks.livenessBoundMs",
] as const;

export const UNSCALED_FIELDS = ["designOptions (request timeouts, retry delays, drift)", "workload.resourceTimeoutMs"] as const;

export const TIME_SCALE_MIN = 0.01;
export const TIME_SCALE_MAX = 10;
/** A TTL shorter than this is below what loopback and a loaded 2-core machine can time meaningfully. */
export const SCALED_TTL_MS_MIN = 20;

export interface TimeScale {
  factor: number;
  scaled: readonly string[];
  unscaled: readonly string[];
}

export function parseTimeScale(text: string, flag = "--time-scale"): number {
  const x = Number(text);
  if (!/^\d*\.?\d+(e-?\d+)?$/i.test(text) || !Number.isFinite(x) || x < TIME_SCALE_MIN || x > TIME_SCALE_MAX) {
    throw new InputError("<arg>", flag, `expected a number from ${TIME_SCALE_MIN} to ${TIME_SCALE_MAX} (e.g. 0.2), got "${text}"`);
  }
  return x;
}

/** ms × factor, kept to µs (times may be fractional ms; the clients time in µs). */
const ms = (v: number, factor: number): number => Math.round(v * factor * 1000) / 1000;
/** TTLs go to Redis as PX: whole ms, at least 1. */
const wholeMs = (v: number, factor: number): number => (v === 0 ? 0 : Math.max(1, Math.round(v * factor)));

export function scaleScenario(s: Scenario, factor: number): Scenario {
  if (factor === 1) return s;
  const w = s.workload;
  const ttlMs = wholeMs(w.ttlMs, factor);
  if (ttlMs < SCALED_TTL_MS_MIN) {
    throw new InputError(
      "<arg>",
      "--time-scale",
      `${factor} makes workload.ttlMs ${w.ttlMs} ms into ${ttlMs} ms; real mode needs at least ${SCALED_TTL_MS_MIN} ms`,
    );
  }
  return {
    ...s,
    durationMs: ms(s.durationMs, factor),
    clients: s.clients.map((c) => ({
      ...c,
      startMs: ms(c.startMs, factor),
      ...(c.workMs !== undefined ? { workMs: scaleWorkTime(c.workMs, (v) => ms(v, factor)) } : {}),
    })),
    workload: {
      ...w,
      ttlMs,
      waitMs: ms(w.waitMs, factor),
      workMs: scaleWorkTime(w.workMs, (v) => ms(v, factor)),
      thinkMs: ms(w.thinkMs, factor),
      thinkJitterMs: ms(w.thinkJitterMs, factor),
      extendTtlMs: wholeMs(w.extendTtlMs, factor),
      renewEveryMs: wholeMs(w.renewEveryMs, factor),
    },
    faults: s.faults.map((f) => ({
      ...f,
      ...(f.atMs !== undefined ? { atMs: ms(f.atMs, factor) } : {}),
      delayMs: ms(f.delayMs, factor),
      ...(f.durationMs !== undefined ? { durationMs: ms(f.durationMs, factor) } : {}),
      ...(f.deltaMs !== undefined ? { deltaMs: ms(f.deltaMs, factor) } : {}),
    })),
    checks: { ...s.checks, ...(s.checks.livenessBoundMs !== undefined ? { livenessBoundMs: ms(s.checks.livenessBoundMs, factor) } : {}) },
  };
}

export function timeScaleInfo(factor: number): TimeScale {
  return { factor, scaled: factor === 1 ? [] : [...SCALED_FIELDS], unscaled: [...UNSCALED_FIELDS] };
}
