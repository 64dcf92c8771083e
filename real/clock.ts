// The run's one clock: CLOCK_MONOTONIC, read with process.hrtime.bigint(). Real mode is the
// one place lockstep reads host time, and it stays inside real/.
//
// The driver fixes the run's time zero (t0) and stamps its own events (faults, storage
// writes) with it. Client processes stamp their events with the same kernel clock, read at
// the instant the event happens, relative to the same t0 — CLOCK_MONOTONIC is one clock for
// every process on the host (outside time namespaces; checked per run by a ping, see
// run.ts). Stamping client events on arrival at the driver instead would misorder them:
// messages from different processes reach the driver in no guaranteed order, so c2's
// acquire-ok could be stamped before c1's release-invoke that made it possible.

/** Nanoseconds on CLOCK_MONOTONIC. */
export function hrNowNs(): bigint {
  return process.hrtime.bigint();
}

export class RunClock {
  constructor(readonly t0Ns: bigint) {}

  /** Run time now, integer µs (negative before t0). */
  nowUs(): number {
    return this.usAt(hrNowNs());
  }

  usAt(ns: bigint): number {
    return Number((ns - this.t0Ns) / 1000n);
  }
}
