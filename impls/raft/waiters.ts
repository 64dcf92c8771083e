/**
 * A Raft node's callbacks waiting on its proposals and read barriers, by id, in parallel
 * arrays: no object per waiter, and no Map set and emptied once per client request (a
 * Map shrinks its table when emptied, then grows it again: an allocation every few
 * requests; issue 17). The node hands out ids in order and most complete soon, so the
 * ids waiting at once are a narrow span: slot `id & mask` rarely holds another id, and
 * when it does the table doubles until they part (up to SLOTS_MAX; past it the rare
 * clash, a long-stuck proposal, goes to a Map). Nothing iterates it.
 */
const SLOTS_INITIAL = 8;
const SLOTS_MAX = 1 << 16;
/** Ids start at 1: 0 marks a free slot. */
const FREE = 0;

export type WaiterKind = "propose" | "read";

export class Waiters<Cb> {
  private ids = new Float64Array(SLOTS_INITIAL);
  private cbs: Array<Cb | undefined> = new Array<Cb | undefined>(SLOTS_INITIAL).fill(undefined);
  private kinds: Array<WaiterKind | undefined> = new Array<WaiterKind | undefined>(SLOTS_INITIAL).fill(undefined);
  private mask = SLOTS_INITIAL - 1;
  private overflow: Map<number, { kind: WaiterKind; cb: Cb }> | undefined;
  /** The kind of the waiter `take` last returned. */
  takenKind: WaiterKind = "propose";

  /** Note waiter `id` (≥ 1, not already waiting). */
  set(id: number, kind: WaiterKind, cb: Cb): void {
    // Bounded: each pass doubles the table, and it stops growing at SLOTS_MAX.
    for (;;) {
      const i = id & this.mask;
      const cur = this.ids[i]!;
      if (cur === FREE || cur === id) {
        this.ids[i] = id;
        this.cbs[i] = cb;
        this.kinds[i] = kind;
        return;
      }
      if (this.ids.length >= SLOTS_MAX) {
        (this.overflow ??= new Map()).set(id, { kind, cb });
        return;
      }
      this.grow();
    }
  }

  /** Take waiter `id` out: its callback (its kind in takenKind), or undefined if none waits. */
  take(id: number): Cb | undefined {
    const i = id & this.mask;
    if (this.ids[i] === id) {
      const cb = this.cbs[i];
      this.takenKind = this.kinds[i]!;
      this.ids[i] = FREE;
      this.cbs[i] = undefined;
      this.kinds[i] = undefined;
      return cb;
    }
    const o = this.overflow?.get(id);
    if (o === undefined) return undefined;
    this.overflow!.delete(id);
    this.takenKind = o.kind;
    return o.cb;
  }

  /** Double the table: entries in distinct slots stay in distinct slots (their low bits already differ). */
  private grow(): void {
    const size = this.ids.length * 2;
    const mask = size - 1;
    const ids = new Float64Array(size);
    const cbs = new Array<Cb | undefined>(size).fill(undefined);
    const kinds = new Array<WaiterKind | undefined>(size).fill(undefined);
    for (let i = 0; i < this.ids.length; i++) {
      const id = this.ids[i]!;
      if (id === FREE) continue;
      const j = id & mask;
      ids[j] = id;
      cbs[j] = this.cbs[i];
      kinds[j] = this.kinds[i];
    }
    this.ids = ids;
    this.cbs = cbs;
    this.kinds = kinds;
    this.mask = mask;
  }
}
