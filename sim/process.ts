import { LocalClock, type ClockOptions } from "./clock.js";

/**
 * A simulated process: its clocks and its lifecycle. Every event meant for a process
 * (message, timer, fiber step) goes through `deliver`, which applies the lifecycle:
 *  - running: handled now;
 *  - paused (GC, VM stall): queued, handled in order on resume; clocks keep running;
 *  - crashed: dropped. A restart starts a new incarnation; events of the old one are dropped.
 */
export type ProcessState = "running" | "paused" | "crashed";

export interface ProcessOptions {
  wall?: ClockOptions;
  /** Drift of the monotonic clock; defaults to the wall clock's drift (one oscillator). */
  monotonicDriftPpm?: number;
}

export class SimProcess {
  state: ProcessState = "running";
  /** Bumped on every crash: events and fibers of an older incarnation are stale. */
  incarnation = 0;
  readonly wall: LocalClock;
  readonly mono: LocalClock;
  private inbox: Array<() => void> = [];
  /** True time at which the current pause ends (if paused). */
  pausedUntilUs = 0;

  constructor(
    readonly id: string,
    readonly role: "client" | "server" | "resource",
    opts: ProcessOptions = {},
  ) {
    this.wall = new LocalClock("wall", opts.wall);
    this.mono = new LocalClock("monotonic", { driftPpm: opts.monotonicDriftPpm ?? opts.wall?.driftPpm ?? 0 });
  }

  /** Run `fn` now, queue it, or drop it, by the process's state. */
  deliver(fn: () => void, incarnation: number): void {
    if (incarnation !== this.incarnation || this.state === "crashed") return;
    if (this.state === "paused") {
      this.inbox.push(fn);
      return;
    }
    fn();
  }

  pause(untilUs: number): void {
    if (this.state === "crashed") return;
    this.state = "paused";
    this.pausedUntilUs = Math.max(this.pausedUntilUs, untilUs);
  }

  /** Resume and drain what queued during the pause, in arrival order. */
  resume(): void {
    if (this.state !== "paused") return;
    this.state = "running";
    while (this.inbox.length > 0 && this.state === "running") {
      const fn = this.inbox.shift()!;
      fn();
    }
  }

  crash(): void {
    this.state = "crashed";
    this.inbox = [];
    this.incarnation++;
  }

  restart(): void {
    this.state = "running";
    this.incarnation++;
  }

  get queuedWhilePaused(): number {
    return this.inbox.length;
  }
}
