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
  /** Position in `history` of each process's open invoke. */
  const open = new Map<string, number>();
  for (let i = 0; i < history.length; i++) {
    const e = history[i]!;
    if (e.type === "invoke") {
      const left = open.get(e.process);
      if (left !== undefined) onUnpaired?.(history[left]!, left);
      open.set(e.process, i);
      continue;
    }
    const at = open.get(e.process);
    if (at === undefined) continue;
    const invoke = history[at]!;
    if (invoke.f !== e.f) continue;
    open.delete(e.process);
    onPair(invoke, e, at);
  }
  if (onUnpaired) for (const at of open.values()) onUnpaired(history[at]!, at);
}
