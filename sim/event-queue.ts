/**
 * A binary min-heap of events ordered by (timeUs, seq). The sequence number is the
 * insertion order, so events at the same microsecond run in the order they were
 * scheduled — on every run, on every machine.
 *
 * Struct of arrays, allocation-free per event (issue 17): the heap holds the keys
 * (time, seq) and a slot number in typed arrays; a slot holds the handler and its
 * arguments. An event is a handler that is not created per event (a module function
 * or a method) plus up to three values and one number, so scheduling a message or a
 * timer builds no closure and no event record. Slots are reused through a free list.
 */
export type EventHandler = (a: any, b: any, c: any, d: number) => void;

const CAPACITY_INITIAL = 256;

/** An array of `n` undefineds that V8 keeps packed (new Array(n) would stay holey). */
const packed = (n: number): unknown[] => Array.from({ length: n }, () => undefined);

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

  constructor() {
    // Lowest slots handed out first (any order would do; this one is easy to read in a debugger).
    for (let i = 0; i < CAPACITY_INITIAL; i++) this.free[i] = CAPACITY_INITIAL - 1 - i;
  }

  get length(): number {
    return this.n;
  }

  /** Time of the earliest event; Infinity when the queue is empty. */
  peekTimeUs(): number {
    return this.n > 0 ? this.timeUs[0]! : Infinity;
  }

  /** Schedule `fn(a, b, c, d)` at `timeUs` (an integer, in true time). */
  push(timeUs: number, fn: EventHandler, a?: unknown, b?: unknown, c?: unknown, d = 0): void {
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
  }

  /**
   * Remove the earliest event and run it (the queue must not be empty). Its slot is
   * freed before the handler runs, so what the handler schedules may reuse it.
   */
  runNext(): void {
    const slot = this.slotOf[0]!;
    this.removeTop();
    const fn = this.fns[slot]!;
    const a = this.as[slot];
    const b = this.bs[slot];
    const c = this.cs[slot];
    const d = this.ds[slot]!;
    // Drop the references: a slot must not keep a finished event's objects alive.
    this.fns[slot] = undefined;
    this.as[slot] = undefined;
    this.bs[slot] = undefined;
    this.cs[slot] = undefined;
    this.free[this.freeCount++] = slot;
    fn(a, b, c, d);
  }

  private removeTop(): void {
    const n = --this.n;
    if (n === 0) return;
    const times = this.timeUs;
    const seqs = this.seqOf;
    const slots = this.slotOf;
    const lt = times[n]!;
    const ls = seqs[n]!;
    const lslot = slots[n]!;
    let i = 0;
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
