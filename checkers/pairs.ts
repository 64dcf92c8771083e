import type { HistoryEvent } from "../sim/history.js";

/**
 * The history's invoke/completion pairs, one at a time, by the pairing rule of
 * sim/history.ts pairOperations: an invoke opens its process's op (an earlier open one
 * is left unknown), and the process's next event of the same `f` that is not an invoke
 * completes it; any other event is an annotation. For checkers that read each pair once
 * and keep no Operation: the state is one open invoke per process, not an object per op.
 * `onUnpaired` gets each invoke that never completes (left open by the process's next
 * invoke, or by the history's end: pairOperations' ops with no `complete`).
 */
export function forEachPair(
  history: readonly HistoryEvent[],
  onPair: (invoke: HistoryEvent, complete: HistoryEvent, invokePosition: number) => void,
  onUnpaired?: (invoke: HistoryEvent, invokePosition: number) => void,
): void {
  const pairer = new Pairer(onPair, onUnpaired);
  for (let i = 0; i < history.length; i++) pairer.push(history[i]!, i);
  pairer.finish();
}

/**
 * forEachPair's rule over a stream: events pushed one at a time (with their position),
 * `finish` at the history's end. Holds one open invoke per process.
 */
export class Pairer {
  private readonly openAt = new Map<string, number>();
  private readonly openEvent = new Map<string, HistoryEvent>();

  constructor(
    private readonly onPair: (invoke: HistoryEvent, complete: HistoryEvent, invokePosition: number) => void,
    private readonly onUnpaired?: (invoke: HistoryEvent, invokePosition: number) => void,
  ) {}

  push(e: HistoryEvent, position: number = e.index): void {
    const invoke = this.openEvent.get(e.process);
    if (e.type === "invoke") {
      if (invoke !== undefined) this.onUnpaired?.(invoke, this.openAt.get(e.process)!);
      this.openAt.set(e.process, position);
      this.openEvent.set(e.process, e);
      return;
    }
    if (invoke === undefined || invoke.f !== e.f) return;
    const at = this.openAt.get(e.process)!;
    this.openAt.delete(e.process);
    this.openEvent.delete(e.process);
    this.onPair(invoke, e, at);
  }

  /** The history ended: every invoke still open never completes. */
  finish(): void {
    if (this.onUnpaired) for (const [p, at] of this.openAt) this.onUnpaired(this.openEvent.get(p)!, at);
    this.openAt.clear();
    this.openEvent.clear();
  }
}
