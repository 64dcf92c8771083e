/**
 * Per-process clocks as piecewise-linear functions of true time.
 *
 * A wall clock has an offset, a rate error (drift, ppm) and can be stepped (jumps:
 * what NTP or an operator does). A monotonic clock shares the rate error but never
 * jumps. All readings are integer microseconds.
 */
export interface ClockOptions {
  /** Initial offset from true time, µs (wall clock only). */
  offsetUs?: number;
  /** Rate error: +100 means the clock gains 100 µs per true second. */
  driftPpm?: number;
}

export class LocalClock {
  private anchorTrueUs = 0;
  private anchorLocalUs: number;
  private ratePpm: number;

  constructor(
    readonly kind: "wall" | "monotonic",
    opts: ClockOptions = {},
  ) {
    this.anchorLocalUs = kind === "wall" ? (opts.offsetUs ?? 0) : 0;
    this.ratePpm = opts.driftPpm ?? 0;
  }

  get driftPpm(): number {
    return this.ratePpm;
  }

  /** Local reading at true time `trueUs` (must not be before the last anchor). */
  read(trueUs: number): number {
    return Math.floor(this.anchorLocalUs + (trueUs - this.anchorTrueUs) * (1 + this.ratePpm / 1e6));
  }

  /** Offset of this clock from true time at `trueUs`, µs. */
  offsetAt(trueUs: number): number {
    return this.read(trueUs) - trueUs;
  }

  /** True duration for a local duration on this clock (timers). Rounded up: never fire early. */
  trueDurationFor(localUs: number): number {
    // The epsilon keeps float noise (999000 / 0.999 = 1000000.0000000001) from adding a µs.
    return Math.ceil(localUs / (1 + this.ratePpm / 1e6) - 1e-6);
  }

  /** Step the clock by `deltaUs` (wall clocks only: a monotonic clock never jumps). */
  jump(trueUs: number, deltaUs: number): void {
    if (this.kind === "monotonic") throw new Error("a monotonic clock cannot jump");
    this.reanchor(trueUs);
    this.anchorLocalUs += deltaUs;
  }

  setDrift(trueUs: number, driftPpm: number): void {
    this.reanchor(trueUs);
    this.ratePpm = driftPpm;
  }

  private reanchor(trueUs: number): void {
    this.anchorLocalUs = this.read(trueUs);
    this.anchorTrueUs = trueUs;
  }
}
