/**
 * A binary min-heap of events ordered by (timeUs, seq). The sequence number is the
 * insertion order, so events at the same microsecond run in the order they were
 * scheduled — on every run, on every machine.
 *
 * Struct of arrays, allocation-free per event: the heap holds the keys
 * (time, seq) and a slot number in typed arrays; a slot holds the handler and its
 * arguments. An event is a handler that is not created per event (a module function
 * or a method) plus up to three values and one number, so scheduling a message or a
 * timer builds no closure and no event record. Slots are reused through a free list.
 *
 * Cancellation is lazy: a cancelled event keeps its heap entry, its slot is
 * marked (no handler) and skipped without being run; when cancelled entries pass half
 * the heap, the live ones are re-heaped in one pass. Keys are unique, so the order of
 * the live events is the same whichever way the heap is built.
 */
export type EventHandler = (a: any, b: any, c: any, d: number) => void;

/** Small: a queue is built per run (per seed in a sweep), and `grow` doubles it when a run needs more. */
const CAPACITY_INITIAL = 64;
/** Below this many cancelled entries a re-heap is not worth its pass (they are popped as they come due). */
const CANCELLED_COMPACT_MIN = 32;

/** An array of `n` undefineds that V8 keeps packed (new Array(n) would stay holey); a loop, as Array.from's iterator path cost a sweep's seed ~3% of its time. */
function packed(n: number): unknown[] {
  const a: unknown[] = [];
  for (let i = 0; i < n; i++) a.push(undefined);
  return a;
}

export class EventQueue {
  // Heap order (index 0 is the earliest).
  private timeUs = new Float64Array(CAPACITY_INITIAL);
  private seqOf = new Float64Array(CAPACITY_INITIAL);
  private slotOf = new Int32Array(CAPACITY_INITIAL);
  // By slot.
  private fns = packed(CAPACITY_INITIAL) as Array<EventHandler | undefined>;
  private as: unknown[] = packed(CAPACITY_INITIAL);
  private bs: unknown[] = packed(CAPACITY_INITIAL);
  private cs: unknown[] = packed(CAPACITY_INITIAL);
  private ds = new Float64Array(CAPACITY_INITIAL);
  private free = new Int32Array(CAPACITY_INITIAL);
  private freeCount = CAPACITY_INITIAL;
  private n = 0;
  private nextSeq = 0;
  /** Heap entries whose event was cancelled (their slot has no handler). */
  private cancelledCount = 0;

  constructor() {
    // Lowest slots handed out first (any order would do; this one is easy to read in a debugger).
    for (let i = 0; i < CAPACITY_INITIAL; i++) this.free[i] = CAPACITY_INITIAL - 1 - i;
  }

  /** Events still to run (cancelled ones not counted). */
  get length(): number {
    return this.n - this.cancelledCount;
  }

  /** Time of the earliest event still to run; Infinity when there is none. */
  peekTimeUs(): number {
    if (this.cancelledCount > 0) this.dropCancelledTop();
    return this.n > 0 ? this.timeUs[0]! : Infinity;
  }

  /**
   * Schedule `fn(a, b, c, d)` at `timeUs` (an integer, in true time). Returns the event's
   * slot, for `cancel`.
   */
  push(timeUs: number, fn: EventHandler, a?: unknown, b?: unknown, c?: unknown, d = 0): number {
    if (this.freeCount === 0) this.grow();
    const slot = this.free[--this.freeCount]!;
    this.fns[slot] = fn;
    this.as[slot] = a;
    this.bs[slot] = b;
    this.cs[slot] = c;
    this.ds[slot] = d;
    const seq = this.nextSeq++;
    const times = this.timeUs;
    const seqs = this.seqOf;
    const slots = this.slotOf;
    let i = this.n++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = times[p]!;
      if (pt < timeUs || (pt === timeUs && seqs[p]! < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[p]!;
      slots[i] = slots[p]!;
      i = p;
    }
    times[i] = timeUs;
    seqs[i] = seq;
    slots[i] = slot;
    return slot;
  }

  /**
   * Cancel the event in `slot` if it is still the one whose second argument is `b` (a
   * slot is reused once its event has run, so the caller's object identifies its event).
   * Returns whether it was cancelled. The event will not run and is not counted.
   */
  cancel(slot: number, b: unknown): boolean {
    if (this.fns[slot] === undefined || this.bs[slot] !== b) return false;
    this.cancelSlot(slot);
    return true;
  }

  /**
   * Cancel the event in `slot` if it is still `fn(a, ·, ·, d)`: for events no object
   * of their own identifies (a call's timeout: its process and its rpcId). Returns whether it was cancelled.
   */
  cancelWith(slot: number, fn: EventHandler, a: unknown, d: number): boolean {
    if (this.fns[slot] !== fn || this.as[slot] !== a || this.ds[slot] !== d) return false;
    this.cancelSlot(slot);
    return true;
  }

  private cancelSlot(slot: number): void {
    this.releaseSlot(slot);
    // Not yet free: its heap entry still names it; the free list gets it when the entry goes.
    this.cancelledCount++;
    if (this.cancelledCount > CANCELLED_COMPACT_MIN && 2 * this.cancelledCount > this.n) this.compact();
  }

  /**
   * Remove the earliest event and run it (the queue must not be empty). Its slot is
   * freed before the handler runs, so what the handler schedules may reuse it.
   */
  runNext(): void {
    if (this.cancelledCount > 0) this.dropCancelledTop();
    const slot = this.slotOf[0]!;
    this.removeTop();
    const fn = this.fns[slot]!;
    const a = this.as[slot];
    const b = this.bs[slot];
    const c = this.cs[slot];
    const d = this.ds[slot]!;
    this.releaseSlot(slot);
    this.free[this.freeCount++] = slot;
    fn(a, b, c, d);
  }

  /** Drop the slot's references: a slot must not keep a finished event's objects alive. */
  private releaseSlot(slot: number): void {
    this.fns[slot] = undefined;
    this.as[slot] = undefined;
    this.bs[slot] = undefined;
    this.cs[slot] = undefined;
  }

  /** Pop cancelled entries off the top, so the top (if any) is an event to run. */
  private dropCancelledTop(): void {
    const fns = this.fns;
    // Bounded: each pass removes one of the n entries.
    while (this.n > 0) {
      const slot = this.slotOf[0]!;
      if (fns[slot] !== undefined) return;
      this.removeTop();
      this.free[this.freeCount++] = slot;
      this.cancelledCount--;
    }
  }

  /** Keep only the live entries and re-heap them (Floyd's build, O(n)). */
  private compact(): void {
    const times = this.timeUs;
    const seqs = this.seqOf;
    const slots = this.slotOf;
    const fns = this.fns;
    let m = 0;
    for (let i = 0; i < this.n; i++) {
      const slot = slots[i]!;
      if (fns[slot] === undefined) {
        this.free[this.freeCount++] = slot;
        continue;
      }
      times[m] = times[i]!;
      seqs[m] = seqs[i]!;
      slots[m] = slot;
      m++;
    }
    this.n = m;
    this.cancelledCount = 0;
    for (let i = (m >> 1) - 1; i >= 0; i--) this.siftDown(i, times[i]!, seqs[i]!, slots[i]!, m);
  }

  private removeTop(): void {
    const n = --this.n;
    if (n === 0) return;
    this.siftDown(0, this.timeUs[n]!, this.seqOf[n]!, this.slotOf[n]!, n);
  }

  /** Place the entry (lt, ls, lslot) at `i` or below, in a heap of `n` entries. */
  private siftDown(i: number, lt: number, ls: number, lslot: number, n: number): void {
    const times = this.timeUs;
    const seqs = this.seqOf;
    const slots = this.slotOf;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n) {
        const rt = times[r]!;
        const ltm = times[l]!;
        if (rt < ltm || (rt === ltm && seqs[r]! < seqs[l]!)) c = r;
      }
      const ct = times[c]!;
      if (lt < ct || (lt === ct && ls < seqs[c]!)) break;
      times[i] = ct;
      seqs[i] = seqs[c]!;
      slots[i] = slots[c]!;
      i = c;
    }
    times[i] = lt;
    seqs[i] = ls;
    slots[i] = lslot;
  }

  private grow(): void {
    const old = this.timeUs.length;
    const cap = old * 2;
    const f64 = (a: Float64Array): Float64Array<ArrayBuffer> => {
      const x = new Float64Array(cap);
      x.set(a);
      return x;
    };
    this.timeUs = f64(this.timeUs);
    this.seqOf = f64(this.seqOf);
    this.ds = f64(this.ds);
    const slots = new Int32Array(cap);
    slots.set(this.slotOf);
    this.slotOf = slots;
    for (const arr of [this.fns, this.as, this.bs, this.cs] as unknown[][]) for (let i = old; i < cap; i++) arr.push(undefined);
    const free = new Int32Array(cap);
    // Every slot is in use when we grow: the free list is the new slots.
    for (let i = 0; i < old; i++) free[i] = cap - 1 - i;
    this.free = free;
    this.freeCount = old;
  }
}
