/**
 * A process's outstanding calls by rpcId, without a Map's table churn (issue 17: a Map
 * that is set and emptied once per call reallocates its table every few calls). A
 * process hands out rpcIds in order and a call ends within its timeout, so the ids
 * pending at once are a narrow span: slot `rpcId & mask` rarely holds another call,
 * and when it does the table doubles until they part (up to SLOTS_MAX; past it the
 * rare clash goes to a Map). Nothing iterates it, so no order is at stake.
 */
export interface Keyed {
  readonly rpcId: number;
}

const SLOTS_INITIAL = 8;
const SLOTS_MAX = 1 << 16;

export class PendingCalls<T extends Keyed> {
  private slots: Array<T | undefined> = emptySlots(SLOTS_INITIAL);
  private mask = SLOTS_INITIAL - 1;
  /** Calls whose slot was taken while the table was at SLOTS_MAX. */
  private overflow: Map<number, T> | undefined;

  get(rpcId: number): T | undefined {
    const e = this.slots[rpcId & this.mask];
    if (e !== undefined && e.rpcId === rpcId) return e;
    return this.overflow?.get(rpcId);
  }

  set(e: T): void {
    // Bounded: each pass doubles the table, and it stops growing at SLOTS_MAX.
    for (;;) {
      const i = e.rpcId & this.mask;
      const cur = this.slots[i];
      if (cur === undefined || cur.rpcId === e.rpcId) {
        this.slots[i] = e;
        return;
      }
      if (this.slots.length >= SLOTS_MAX) {
        (this.overflow ??= new Map()).set(e.rpcId, e);
        return;
      }
      this.grow();
    }
  }

  delete(rpcId: number): void {
    const i = rpcId & this.mask;
    const e = this.slots[i];
    if (e !== undefined && e.rpcId === rpcId) this.slots[i] = undefined;
    else this.overflow?.delete(rpcId);
  }

  /** Double the table: entries in distinct slots stay in distinct slots (their low bits already differ). */
  private grow(): void {
    const size = this.slots.length * 2;
    const slots = emptySlots<T>(size);
    const mask = size - 1;
    for (const e of this.slots) if (e !== undefined) slots[e.rpcId & mask] = e;
    this.slots = slots;
    this.mask = mask;
  }
}

/** Packed (not holey) so that V8 keeps one elements kind. */
function emptySlots<T>(n: number): Array<T | undefined> {
  return Array.from({ length: n }, () => undefined);
}
