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
  /**
   * Events held during a pause, in arrival order: a handler and its three arguments per
   * entry (the kernel's messages and timers queue no closure); `inboxHead` is
   * the next to run.
   */
  private inboxFns: Array<(a: any, b: any, c: any) => void> = [];
  private inboxAs: unknown[] = [];
  private inboxBs: unknown[] = [];
  private inboxCs: unknown[] = [];
  private inboxHead = 0;
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
    this.deliverWith(callThunk, fn, undefined, undefined, incarnation);
  }

  /** `deliver` of `fn(a, b, c)`: what the kernel's own events use, so a pause queues no closure. */
  deliverWith<A, B, C>(fn: (a: A, b: B, c: C) => void, a: A, b: B, c: C, incarnation: number): void {
    if (incarnation !== this.incarnation || this.state === "crashed") return;
    if (this.state === "paused") {
      this.inboxFns.push(fn);
      this.inboxAs.push(a);
      this.inboxBs.push(b);
      this.inboxCs.push(c);
      return;
    }
    fn(a, b, c);
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
    // Bounded: each pass takes one entry; what a handler queues (a pause again) waits behind.
    while (this.inboxHead < this.inboxFns.length && this.state === "running") {
      const i = this.inboxHead++;
      const fn = this.inboxFns[i]!;
      const a = this.inboxAs[i];
      const b = this.inboxBs[i];
      const c = this.inboxCs[i];
      fn(a, b, c);
    }
    if (this.inboxHead >= this.inboxFns.length) this.clearInbox();
  }

  private clearInbox(): void {
    this.inboxFns.length = 0;
    this.inboxAs.length = 0;
    this.inboxBs.length = 0;
    this.inboxCs.length = 0;
    this.inboxHead = 0;
  }

  crash(): void {
    this.state = "crashed";
    this.clearInbox();
    this.incarnation++;
  }

  restart(): void {
    this.state = "running";
    this.incarnation++;
  }

  get queuedWhilePaused(): number {
    return this.inboxFns.length - this.inboxHead;
  }
}

function callThunk(fn: () => void): void {
  fn();
}
