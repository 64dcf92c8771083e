import type { HistoryEvent } from "../sim/history.js";
import type { CheckContext, CheckResult, Checker, OnlineChecker } from "./types.js";

/**
 * A batch checker fed from a stream: the events held up to BUFFERED_EVENTS_MAX and
 * judged at the end, or "unknown" past that bound, naming it. For checkers with no
 * online form, and for histories an online form cannot take (liveness without a TTL).
 */
export const BUFFERED_EVENTS_MAX = 250_000;

export class BufferedChecker implements OnlineChecker {
  private events: HistoryEvent[] | undefined = [];
  private seen = 0;

  constructor(
    private readonly name: string,
    private readonly check: Checker,
    private readonly ctx: CheckContext,
    private readonly eventsMax = BUFFERED_EVENTS_MAX,
  ) {}

  push(e: HistoryEvent): void {
    this.seen++;
    if (this.events && this.events.length >= this.eventsMax) this.events = undefined;
    this.events?.push(e);
  }

  result(): CheckResult {
    if (this.events) return this.check(this.events, this.ctx);
    return {
      checker: this.name,
      valid: "unknown",
      summary: `not judged: ${this.name} has no online form and the run's ${this.seen} events passed the ${this.eventsMax} it may hold`,
      stats: { events: this.seen, eventsMax: this.eventsMax },
    };
  }
}
