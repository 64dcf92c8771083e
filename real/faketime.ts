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
