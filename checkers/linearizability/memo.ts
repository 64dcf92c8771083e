/**
 * The search's memo of configurations seen, stored by column: a valid history of n ops
 * memoizes about n configurations, and an object per entry, a Map slot per key and an
 * array of holes each cost some 230 bytes an entry where these columns cost about 50
 * (the holes of every entry sit end to end in one pool). Entries sit in chains per slot
 * of an open table (a slot's chain may mix keys: the key is compared first).
 */

/**
 * Entries to start with (doubled as needed): a sweep checks a short history per seed, which
 * memoizes a few dozen configurations, and nine columns of 1024 cost it ~44 KB of zeroed
 * typed arrays per check (their allocation was ~2% of a seed's time). 16 Int32s are 64 bytes,
 * which V8 keeps on its heap, with no separate backing store.
 */
const SLOTS_MIN = 1 << 4;
/** The most entries made room for up front, whatever the hint (a 1M-op history grows as it goes). */
const SLOTS_HINT_MAX = 1 << 16;

export class Memo<S, I> {
  private size = 0;
  private keys: Int32Array;
  private zHis: Int32Array;
  private linCounts: Int32Array;
  private bases: Int32Array;
  private infoCounts: Int32Array;
  /** Next entry in the same slot's chain, plus one (0 ends it). */
  private nexts: Int32Array;
  /** Where each entry's holes start in `pool`, and how many. */
  private holesAt: Int32Array;
  private holesCounts: Int32Array;
  private pool: Int32Array;
  private poolUsed = 0;
  private readonly infos: I[] = [];
  private readonly states: S[] = [];
  /** First entry of each slot's chain, plus one (0: empty); slots stay at least twice the entries. */
  private heads: Int32Array;

  /** `entriesHint`: how many entries to make room for at first (doubling each time it is passed). */
  constructor(
    private readonly equalState: (a: S, b: S) => boolean,
    private readonly sameInfo: (a: I, b: I) => boolean,
    entriesHint = SLOTS_MIN,
  ) {
    let cap = SLOTS_MIN;
    while (cap < entriesHint && cap < SLOTS_HINT_MAX) cap *= 2;
    this.keys = new Int32Array(cap);
    this.zHis = new Int32Array(cap);
    this.linCounts = new Int32Array(cap);
    this.bases = new Int32Array(cap);
    this.infoCounts = new Int32Array(cap);
    this.nexts = new Int32Array(cap);
    this.holesAt = new Int32Array(cap);
    this.holesCounts = new Int32Array(cap);
    this.pool = new Int32Array(cap);
    this.heads = new Int32Array(2 * cap);
  }

  get entries(): number {
    return this.size;
  }

  /**
   * False if an equal configuration is memoized; else memoizes this one and is true.
   * `hash` is the 32-bit lookup hash (Zobrist of the set mixed with the state's), `zHi`
   * the other 32 Zobrist bits; the set is (base, linCount, the first holesCount of
   * `holes`: the unlinearized ranks past base) plus the info set. Positional, not an
   * object: this runs at every step.
   */
  addIfNew(hash: number, zHi: number, linCount: number, base: number, infoCount: number, holes: Int32Array, holesCount: number, state: S, info: I): boolean {
    const key = hash | 0;
    const hi = zHi | 0;
    for (let i = this.heads[key & (this.heads.length - 1)]!; i !== 0; i = this.nexts[i - 1]!) {
      const e = i - 1;
      if (
        this.keys[e] === key &&
        this.zHis[e] === hi &&
        this.linCounts[e] === linCount &&
        this.bases[e] === base &&
        this.infoCounts[e] === infoCount &&
        this.holesCounts[e] === holesCount &&
        this.sameHoles(e, holes, holesCount) &&
        this.equalState(this.states[e]!, state) &&
        (infoCount === 0 || this.sameInfo(this.infos[e]!, info))
      )
        return false;
    }
    if (this.size === this.keys.length) this.grow();
    const e = this.size++;
    this.keys[e] = key;
    this.zHis[e] = hi;
    this.linCounts[e] = linCount;
    this.bases[e] = base;
    this.infoCounts[e] = infoCount;
    while (this.poolUsed + holesCount > this.pool.length) this.pool = widened(this.pool, 2 * this.pool.length);
    for (let i = 0; i < holesCount; i++) this.pool[this.poolUsed + i] = holes[i]!;
    this.holesAt[e] = this.poolUsed;
    this.holesCounts[e] = holesCount;
    this.poolUsed += holesCount;
    this.infos.push(info);
    this.states.push(state);
    this.link(e);
    return true;
  }

  private sameHoles(e: number, holes: Int32Array, count: number): boolean {
    const at = this.holesAt[e]!;
    for (let i = 0; i < count; i++) if (this.pool[at + i] !== holes[i]) return false;
    return true;
  }

  private link(e: number): void {
    const slot = this.keys[e]! & (this.heads.length - 1);
    this.nexts[e] = this.heads[slot]!;
    this.heads[slot] = e + 1;
  }

  private grow(): void {
    const cap = 2 * this.keys.length;
    const wider = (a: Int32Array) => widened(a, cap);
    this.keys = wider(this.keys);
    this.zHis = wider(this.zHis);
    this.linCounts = wider(this.linCounts);
    this.bases = wider(this.bases);
    this.infoCounts = wider(this.infoCounts);
    this.nexts = wider(this.nexts);
    this.holesAt = wider(this.holesAt);
    this.holesCounts = wider(this.holesCounts);
    // Relink every entry into the wider table, oldest first, as they were added.
    this.heads = new Int32Array(2 * cap);
    for (let e = 0; e < this.size; e++) this.link(e);
  }
}

function widened(a: Int32Array, length: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(length);
  b.set(a);
  return b;
}
