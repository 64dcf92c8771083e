import type { EventType, HistoryEvent } from "../../sim/history.js";

/**
 * Build fixed histories in tests: `h.at(ms).ev(process, type, f, lock, value)`. Events
 * may be written out of time order (one client's section, then another's); `events`
 * gives them as a history records them: in time order (stable), indexed densely.
 */
export class HistoryBuilder {
  private readonly written: HistoryEvent[] = [];
  private sorted: HistoryEvent[] | undefined;
  private nowUs = 0;

  get events(): HistoryEvent[] {
    this.sorted ??= [...this.written].sort((a, b) => a.timeUs - b.timeUs || a.index - b.index).map((e, index) => ({ ...e, index }));
    return this.sorted;
  }

  at(ms: number): this {
    this.nowUs = Math.round(ms * 1000);
    return this;
  }

  ev(process: string, type: EventType, f: string, lock?: string, value?: unknown): this {
    const e: HistoryEvent = { index: this.written.length, timeUs: this.nowUs, process, type, f };
    if (lock !== undefined) e.lock = lock;
    if (value !== undefined) e.value = value;
    this.written.push(e);
    this.sorted = undefined;
    return this;
  }

  /** A whole critical section: acquire at `t`, read, write, release `durMs` later. */
  section(process: string, grantId: string, lock: string, tMs: number, durMs: number, counterBefore: number, token?: number): this {
    const tok = token !== undefined ? { token } : {};
    this.at(tMs).ev(process, "invoke", "acquire", lock, { ttlMs: 10_000, waitMs: 0 });
    this.at(tMs + 1).ev(process, "ok", "acquire", lock, { grantId, validityMs: 9999, ttlMs: 10_000, ...tok });
    this.ev(process, "invoke", "read", lock, { grantId, ...tok });
    this.at(tMs + 2).ev(process, "ok", "read", lock, { counter: counterBefore });
    this.ev(process, "invoke", "write", lock, { grantId, ...tok, counter: counterBefore + 1 });
    this.at(tMs + durMs - 1).ev(process, "ok", "write", lock, {});
    this.ev(process, "invoke", "release", lock, { grantId });
    this.at(tMs + durMs).ev(process, "ok", "release", lock, { released: true });
    return this;
  }

  finalRead(lock: string, counter: number, tMs = 1e6): this {
    return this.at(tMs).ev("storage", "ok", "final-read", lock, { counter });
  }
}
