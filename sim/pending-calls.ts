import type { FiberStep } from "./fiber.js";

/**
 * A process's outstanding calls: by rpcId, the fiber waiting on it and its timeout's
 * queue slot, in parallel arrays, so a call costs no object here (issue 17; a Map set
 * and emptied once per call also reallocated its table every few calls). A process
 * hands out rpcIds in order and a call ends within its timeout, so the ids pending at
 * once are a narrow span: slot `rpcId & mask` rarely holds another call, and when it
 * does the table doubles until they part (up to SLOTS_MAX; past it the rare clash goes
 * to a Map). Nothing iterates it, so no order is at stake.
 */
const SLOTS_INITIAL = 8;
const SLOTS_MAX = 1 << 16;
/** rpcIds start at 1: 0 marks a free slot. */
const FREE = 0;

interface Overflowed {
  run: FiberStep;
  timerSlot: number;
}

export class PendingCalls {
  private ids = new Float64Array(SLOTS_INITIAL);
  private runs: Array<FiberStep | undefined> = emptyRuns(SLOTS_INITIAL);
  private timerSlots = new Int32Array(SLOTS_INITIAL);
  private mask = SLOTS_INITIAL - 1;
  private overflow: Map<number, Overflowed> | undefined;
  /** The timeout slot of the call `take` last returned. */
  takenTimerSlot = -1;

  /** Note call `rpcId` (≥ 1): `run` waits on it, its timeout is in queue slot `timerSlot`. */
  set(rpcId: number, run: FiberStep, timerSlot: number): void {
    // Bounded: each pass doubles the table, and it stops growing at SLOTS_MAX.
    for (;;) {
      const i = rpcId & this.mask;
      const cur = this.ids[i]!;
      if (cur === FREE || cur === rpcId) {
        this.ids[i] = rpcId;
        this.runs[i] = run;
        this.timerSlots[i] = timerSlot;
        return;
      }
      if (this.ids.length >= SLOTS_MAX) {
        (this.overflow ??= new Map()).set(rpcId, { run, timerSlot });
        return;
      }
      this.grow();
    }
  }

  /** Take call `rpcId` out: its waiting fiber (its timeout slot in takenTimerSlot), or undefined if it is not pending. */
  take(rpcId: number): FiberStep | undefined {
    const i = rpcId & this.mask;
    if (this.ids[i] === rpcId) {
      const run = this.runs[i];
      this.takenTimerSlot = this.timerSlots[i]!;
      this.ids[i] = FREE;
      this.runs[i] = undefined;
      return run;
    }
    const o = this.overflow?.get(rpcId);
    if (o === undefined) return undefined;
    this.overflow!.delete(rpcId);
    this.takenTimerSlot = o.timerSlot;
    return o.run;
  }

  /** Double the table: entries in distinct slots stay in distinct slots (their low bits already differ). */
  private grow(): void {
    const size = this.ids.length * 2;
    const mask = size - 1;
    const ids = new Float64Array(size);
    const runs = emptyRuns(size);
    const timerSlots = new Int32Array(size);
    for (let i = 0; i < this.ids.length; i++) {
      const id = this.ids[i]!;
      if (id === FREE) continue;
      const j = id & mask;
      ids[j] = id;
      runs[j] = this.runs[i];
      timerSlots[j] = this.timerSlots[i]!;
    }
    this.ids = ids;
    this.runs = runs;
    this.timerSlots = timerSlots;
    this.mask = mask;
  }
}

/** Packed (not holey) so that V8 keeps one elements kind. */
function emptyRuns(n: number): Array<FiberStep | undefined> {
  const a: Array<FiberStep | undefined> = [];
  for (let i = 0; i < n; i++) a.push(undefined);
  return a;
}
