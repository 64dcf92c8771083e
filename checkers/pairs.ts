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

/** A process's open invoke (none: `invoke` undefined), kept for the process's next one. */
interface OpenSlot {
  invoke: HistoryEvent | undefined;
  at: number;
  /** When the process's invoke became open after none was: `finish` reports in this order. */
  openedOrder: number;
}

/**
 * forEachPair's rule over a stream: events pushed one at a time (with their position),
 * `finish` at the history's end. Holds one open invoke per process, in a slot kept
 * for the process's whole run: a pair costs one map lookup and no allocation (two maps
 * set and deleted per pair were a few percent of checking a 360,000-event history).
 */
export class Pairer {
  private readonly slots = new Map<string, OpenSlot>();
  private opened = 0;

  constructor(
    private readonly onPair: (invoke: HistoryEvent, complete: HistoryEvent, invokePosition: number) => void,
    private readonly onUnpaired?: (invoke: HistoryEvent, invokePosition: number) => void,
  ) {}

  push(e: HistoryEvent, position: number = e.index): void {
    const slot = this.slots.get(e.process);
    const invoke = slot?.invoke;
    if (e.type === "invoke") {
      if (slot === undefined) {
        this.slots.set(e.process, { invoke: e, at: position, openedOrder: this.opened++ });
        return;
      }
      if (invoke !== undefined) this.onUnpaired?.(invoke, slot.at);
      else slot.openedOrder = this.opened++;
      slot.invoke = e;
      slot.at = position;
      return;
    }
    if (invoke === undefined || invoke.f !== e.f) return;
    slot!.invoke = undefined;
    this.onPair(invoke, e, slot!.at);
  }

  /** The history ended: every invoke still open never completes (in the order they became open, as before). */
  finish(): void {
    if (this.onUnpaired) {
      const open = [...this.slots.values()].filter((s) => s.invoke !== undefined).sort((a, b) => a.openedOrder - b.openedOrder);
      for (const s of open) this.onUnpaired(s.invoke!, s.at);
    }
    this.slots.clear();
  }
}
