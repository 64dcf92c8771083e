/**
 * A binary min-heap of events ordered by (timeUs, seq). The sequence number is the
 * insertion order, so events at the same microsecond run in the order they were
 * scheduled — on every run, on every machine.
 */
export interface QueuedEvent {
  timeUs: number;
  seq: number;
  run: () => void;
}

export class EventQueue {
  private heap: QueuedEvent[] = [];
  private nextSeq = 0;

  get length(): number {
    return this.heap.length;
  }

  push(timeUs: number, run: () => void): QueuedEvent {
    const ev: QueuedEvent = { timeUs, seq: this.nextSeq++, run };
    const h = this.heap;
    h.push(ev);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(ev, h[p]!)) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = ev;
    return ev;
  }

  peek(): QueuedEvent | undefined {
    return this.heap[0];
  }

  pop(): QueuedEvent | undefined {
    const h = this.heap;
    const top = h[0];
    if (top === undefined) return undefined;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      const n = h.length;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && before(h[r]!, h[l]!) ? r : l;
        if (!before(h[c]!, last)) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}

function before(a: QueuedEvent, b: QueuedEvent): boolean {
  return a.timeUs < b.timeUs || (a.timeUs === b.timeUs && a.seq < b.seq);
}
