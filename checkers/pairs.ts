import type { HistoryEvent } from "../sim/history.js";

/**
 * The history's invoke/completion pairs, one at a time, by the pairing rule of
 * sim/history.ts pairOperations: an invoke opens its process's op (an earlier open one
 * is left unknown), and the process's next event of the same `f` that is not an invoke
 * completes it; any other event is an annotation. For checkers that read each pair once
 * and keep no Operation: the state is one open invoke per process, not an object per op.
 */
export function forEachPair(
  history: readonly HistoryEvent[],
  onPair: (invoke: HistoryEvent, complete: HistoryEvent, invokePosition: number) => void,
): void {
  /** Position in `history` of each process's open invoke. */
  const open = new Map<string, number>();
  for (let i = 0; i < history.length; i++) {
    const e = history[i]!;
    if (e.type === "invoke") {
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
}
