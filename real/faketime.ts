// Client clock faults in real mode: each client's Node process runs under libfaketime
// (LD_PRELOAD) reading its own timestamp file, which the driver rewrites. With
// FAKETIME_NO_CACHE=1 the file is read again on every time call, so a rewrite takes effect
// at the child's next Date.now(); DONT_FAKE_MONOTONIC=1 leaves CLOCK_MONOTONIC alone, so the
// run's one clock (real/clock.ts: hrtime) stays the driver's. What moves is the wall clock:
// Date.now() and new Date(). Of the libraries real clients run, node-redlock 4.2.0 times its
// validity with Date.now() (start, expiration = start + ttl − drift, and our holds() compares
// expiration with Date.now()); ioredis times commandTimeout and reconnects with setTimeout,
// which libuv runs on CLOCK_MONOTONIC, so a jump moves none of ioredis's timers (it reads
// Date.now() only for blocking commands' deadlines, BLPOP and kin, which no recipe sends). So a jump
// back makes redlock believe its lock valid for longer; a jump forward, shorter.
//
// File syntax (libfaketime's relative form): "<±seconds> x<rate>", e.g. "-1.500 x1.05". The
// rate applies to the time since the process started (libfaketime's own start reading), so
// a rate is only set before the client starts (clocks.<id>.driftPpm), never changed mid-run.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FaultLog } from "./faults.js";
import type { RealPlan } from "./plan.js";
import type { RunCheck } from "./run-checks.js";

export const FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

export function faketimeAvailable(): boolean {
  return existsSync(FAKETIME_LIB);
}

/** What a client's clock file says: a wall-clock offset from the host's, and a rate from the drift. */
export interface FakeClock {
  offsetMs: number;
  driftPpm: number;
}

/** libfaketime's relative timestamp line for a clock. */
export function faketimeLine(c: FakeClock): string {
  const s = c.offsetMs / 1000;
  const sign = s < 0 ? "-" : "+";
  const rate = 1 + c.driftPpm / 1_000_000;
  return `${sign}${Math.abs(s).toFixed(3)}${c.driftPpm !== 0 ? ` x${rate.toFixed(6)}` : ""}\n`;
}

/** One client's timestamp file: written before the client starts, rewritten for each jump. */
export class ClientClockFile {
  readonly path: string;
  private clock: FakeClock;

  constructor(dir: string, initial: FakeClock) {
    this.path = join(dir, "faketime.rc");
    this.clock = { ...initial };
    this.write();
  }

  get current(): FakeClock {
    return { ...this.clock };
  }

  /** Shift the wall clock by deltaMs from now on (the child sees it at its next Date.now()). */
  jump(deltaMs: number): void {
    this.clock.offsetMs += deltaMs;
    this.write();
  }

  /** The environment that puts a Node process under this file's clock. */
  env(): Record<string, string> {
    return {
      LD_PRELOAD: FAKETIME_LIB,
      FAKETIME_TIMESTAMP_FILE: this.path,
      FAKETIME_NO_CACHE: "1",
      DONT_FAKE_MONOTONIC: "1",
    };
  }

  private write(): void {
    writeFileSync(this.path, faketimeLine(this.clock));
  }
}

/** A client's clock read by the child itself: the same instant on CLOCK_MONOTONIC and Date.now(). */
export interface ClockReading {
  hrNs: bigint;
  wallMs: number;
}

/** How far a wall clock moved beyond the monotonic clock between two readings, ms. */
export function wallStepMs(before: ClockReading, after: ClockReading): number {
  return after.wallMs - before.wallMs - Number(after.hrNs - before.hrNs) / 1e6;
}

/** A jump counts as seen when the child's Date.now() moved by deltaMs within this (Date.now() is whole ms). */
export const JUMP_SEEN_TOLERANCE_MS = 5;

/** What the run saw of one faked client clock: its readings at the start ping and (if it answered) at the end. */
export interface ClientClockEvidence {
  id: string;
  clock: FakeClock;
  start: ClockReading;
  /** The driver's own Date.now() just before the start ping (the host's wall clock). */
  hostWallMsAtStart: number;
  end?: ClockReading;
}

/** Offsets are seen at the start ping, which lies within this of the host's reading (a loaded machine). */
const OFFSET_SEEN_TOLERANCE_MS = 50;
/** A rate is measured over the run; its error is at most ±2 ms of Date.now() rounding over that span, plus this. */
const DRIFT_SEEN_TOLERANCE_PPM = 500;
/** The rate runs from the client process's start, at most this long before the start ping (its ready bound). */
const PROCESS_START_BEFORE_PING_MS_MAX = 30_000;

/**
 * A faked clock is evidence only if the child's Date.now() really moved: each jump seen
 * (the child's wall step between its two readings is deltaMs), each offset and rate seen.
 * A run that fails this is no evidence of what a clock fault does (the CLI exits 1).
 */
export function clientClockChecks(plan: RealPlan, faults: readonly FaultLog[], evidence: readonly ClientClockEvidence[]): RunCheck[] {
  const checks: RunCheck[] = [];
  const jumps = faults.filter((f) => f.kind === "clock-jump" && plan.fakeClocks[f.target] !== undefined);
  if (jumps.length > 0) {
    const bad = jumps.filter((f) => !f.wall || Math.abs(f.wall.stepMs - (plan.faults[f.step]?.step.deltaMs ?? 0)) > JUMP_SEEN_TOLERANCE_MS);
    checks.push({
      name: "client clock jumps seen by the child",
      ok: bad.length === 0,
      detail: jumps
        .map((f) => (f.wall ? `step ${f.step}: ${f.target}'s Date.now() ${f.wall.beforeMs} → ${f.wall.afterMs}, a step of ${f.wall.stepMs} ms beyond its monotonic clock (asked ${plan.faults[f.step]?.step.deltaMs} ms)` : `step ${f.step}: ${f.target}: not read`))
        .join("; "),
    });
  }
  const offsets = evidence.filter((e) => e.clock.offsetMs !== 0 || e.clock.driftPpm !== 0);
  if (offsets.length > 0) {
    const lines: string[] = [];
    let ok = true;
    for (const e of offsets) {
      const seenMs = e.start.wallMs - e.hostWallMsAtStart;
      const driftRoomMs = (Math.abs(e.clock.driftPpm) / 1e6) * PROCESS_START_BEFORE_PING_MS_MAX;
      const offsetOk = Math.abs(seenMs - e.clock.offsetMs) <= OFFSET_SEEN_TOLERANCE_MS + driftRoomMs;
      let line = `${e.id}: offset ${seenMs} ms at the start ping (asked ${e.clock.offsetMs} ms)`;
      let rateOk = true;
      if (e.clock.driftPpm !== 0) {
        if (!e.end) rateOk = false;
        else {
          const spanMs = Number(e.end.hrNs - e.start.hrNs) / 1e6;
          const jumpedMs = jumps.filter((f) => f.target === e.id).reduce((a, f) => a + (plan.faults[f.step]?.step.deltaMs ?? 0), 0);
          const ppm = spanMs > 0 ? ((e.end.wallMs - e.start.wallMs - jumpedMs - spanMs) / spanMs) * 1e6 : Number.NaN;
          rateOk = Math.abs(ppm - e.clock.driftPpm) <= DRIFT_SEEN_TOLERANCE_PPM + (2 / Math.max(1, spanMs)) * 1e6;
          line += `, rate ${Math.round(ppm)} ppm over ${spanMs.toFixed(0)} ms (asked ${e.clock.driftPpm} ppm)`;
        }
        if (!e.end) line += ", rate not read (no end reading)";
      }
      ok &&= offsetOk && rateOk;
      lines.push(line);
    }
    checks.push({ name: "client clock offsets seen by the child", ok, detail: lines.join("; ") });
  }
  return checks;
}
