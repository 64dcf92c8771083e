import type { ProcessContext, TimerHandle } from "../../sim/simulation.js";

/**
 * A timer whose deadline moves without rescheduling: a Raft follower resets its
 * election timer on every AppendEntries, and cancelling a kernel timer still leaves its
 * event in the queue (it costs a step when due: 15.9k of a 68k-event run).
 * This keeps at most one kernel timer armed; moving the deadline later only records it,
 * and when the armed timer comes due before the deadline it re-arms for the remainder.
 * Deadlines are on the process's monotonic clock, as the kernel's timers are. A deadline
 * moved earlier than the armed timer re-arms at once (a fresh draw may be shorter).
 */
export class LazyTimer {
  /** Monotonic µs at which `fire` is due; undefined: not set. */
  private deadlineUs: number | undefined;
  private armed: TimerHandle | undefined;
  /** Monotonic µs at which the armed kernel timer comes due. */
  private armedDueUs = 0;
  private readonly onDue = (): void => this.due();

  constructor(
    private readonly ctx: ProcessContext,
    private readonly fire: () => void,
  ) {}

  /** (Re)set the deadline to `delayMs` from now; any earlier deadline is forgotten. */
  set(delayMs: number): void {
    const nowUs = this.ctx.monoUs();
    const delayUs = Math.round(delayMs * 1000);
    this.deadlineUs = nowUs + delayUs;
    if (this.armed !== undefined && this.armedDueUs <= this.deadlineUs) return;
    this.arm(nowUs, delayUs);
  }

  cancel(): void {
    this.deadlineUs = undefined;
    this.ctx.cancelTimer(this.armed);
    this.armed = undefined;
  }

  private arm(nowUs: number, delayUs: number): void {
    this.ctx.cancelTimer(this.armed);
    this.armedDueUs = nowUs + delayUs;
    this.armed = this.ctx.setTimerUs(delayUs, this.onDue);
  }

  private due(): void {
    this.armed = undefined;
    if (this.deadlineUs === undefined) return;
    const nowUs = this.ctx.monoUs();
    // Moved on since this timer was armed: wait out the rest (at least 1 µs, so a clock
    // that reads a hair behind the kernel's rounding cannot spin).
    if (nowUs < this.deadlineUs) return this.arm(nowUs, Math.max(1, this.deadlineUs - nowUs));
    this.deadlineUs = undefined;
    this.fire();
  }
}
