/**
 * Values waiting on ids handed out in order (a process's outstanding calls by rpcId, a
 * Raft node's proposals and read barriers), each with a number tag, in parallel arrays:
 * no object per entry, and no Map set and emptied once per request (a Map shrinks its
 * table when emptied, then grows it again: an allocation every few requests).
 * Most ids complete soon, so the ids waiting at once are a narrow span: slot `id & mask`
 * rarely holds another id, and when it does the table doubles until they part (up to
 * SLOTS_MAX; past it the rare clash, a long-stuck id, goes to a Map). Nothing iterates
 * it, so no order is at stake.
 */
const SLOTS_INITIAL = 8;
const SLOTS_MAX = 1 << 16;
/** Ids start at 1: 0 marks a free slot. */
const FREE = 0;

export class IdSlots<V> {
  private ids = new Float64Array(SLOTS_INITIAL);
  private values: Array<V | undefined> = emptyValues(SLOTS_INITIAL);
  private tags = new Int32Array(SLOTS_INITIAL);
  private mask = SLOTS_INITIAL - 1;
  private overflow: Map<number, { value: V; tag: number }> | undefined;
  /** The tag of the value `take` last returned. */
  takenTag = -1;
  /** Ids waiting now. */
  count = 0;

  /** Note `value` waiting on `id` (≥ 1), with `tag` (an int32). */
  set(id: number, value: V, tag: number): void {
    // Bounded: each pass doubles the table, and it stops growing at SLOTS_MAX.
    for (;;) {
      const i = id & this.mask;
      const cur = this.ids[i]!;
      if (cur === FREE || cur === id) {
        if (cur === FREE) this.count++;
        this.ids[i] = id;
        this.values[i] = value;
        this.tags[i] = tag;
        return;
      }
      if (this.ids.length >= SLOTS_MAX) {
        const overflow = (this.overflow ??= new Map());
        if (!overflow.has(id)) this.count++;
        overflow.set(id, { value, tag });
        return;
      }
      this.grow();
    }
  }

  /** Take `id` out: its value (its tag in takenTag), or undefined if nothing waits on it. */
  take(id: number): V | undefined {
    const i = id & this.mask;
    if (this.ids[i] === id) {
      const value = this.values[i];
      this.takenTag = this.tags[i]!;
      this.ids[i] = FREE;
      this.values[i] = undefined;
      this.count--;
      return value;
    }
    const o = this.overflow?.get(id);
    if (o === undefined) return undefined;
    this.overflow!.delete(id);
    this.count--;
    this.takenTag = o.tag;
    return o.value;
  }

  /** Double the table: entries in distinct slots stay in distinct slots (their low bits already differ). */
  private grow(): void {
    const size = this.ids.length * 2;
    const mask = size - 1;
    const ids = new Float64Array(size);
    const values = emptyValues<V>(size);
    const tags = new Int32Array(size);
    for (let i = 0; i < this.ids.length; i++) {
      const id = this.ids[i]!;
      if (id === FREE) continue;
      const j = id & mask;
      ids[j] = id;
      values[j] = this.values[i];
      tags[j] = this.tags[i]!;
    }
    this.ids = ids;
    this.values = values;
    this.tags = tags;
    this.mask = mask;
  }
}

/** Packed (not holey) so that V8 keeps one elements kind. */
function emptyValues<V>(n: number): Array<V | undefined> {
  const a: Array<V | undefined> = [];
  for (let i = 0; i < n; i++) a.push(undefined);
  return a;
}
