// Bounds for real-mode waits on a shared machine. A fixed bound that holds on an idle
// machine fails on a loaded one (a Node child took over 5 s to print its pid at load 14 on
// 2 cores), so each bound is a base stretched by the 1-minute load per core, re-read when
// it runs out: a wait ends only when it has lasted longer than the load of that moment allows.
import { availableParallelism, loadavg } from "node:os";

/** The most a base bound is stretched: a wait never hangs for ever on a wedged machine. */
const STRETCH_MAX = 20;

/** `baseMs` stretched by the current load: × (1 + load per core), at most ×STRETCH_MAX. */
export function loadTolerantMs(baseMs: number): number {
  const perCore = (loadavg()[0] ?? 0) / Math.max(1, availableParallelism());
  return Math.round(baseMs * Math.min(STRETCH_MAX, 1 + Math.max(0, perCore)));
}

/** "load 14.20 on 2 cores", for messages about a wait that ran out. */
export function loadNote(): string {
  return `load ${(loadavg()[0] ?? 0).toFixed(2)} on ${availableParallelism()} cores`;
}

/** A deadline from now for a wait of base `baseMs`: expired() re-reads the load before saying yes. */
export class LoadTolerantDeadline {
  private readonly startMs = Date.now();
  private boundMs: number;

  constructor(readonly baseMs: number) {
    this.boundMs = loadTolerantMs(baseMs);
  }

  elapsedMs(): number {
    return Date.now() - this.startMs;
  }

  /** True once the wait has lasted longer than the bound at the current load. */
  expired(): boolean {
    if (this.elapsedMs() < this.boundMs) return false;
    this.boundMs = Math.max(this.boundMs, loadTolerantMs(this.baseMs));
    return this.elapsedMs() >= this.boundMs;
  }

  /** ms until the bound at the load last read runs out (at least 1). */
  remainingMs(): number {
    return Math.max(1, this.boundMs - this.elapsedMs());
  }
}
