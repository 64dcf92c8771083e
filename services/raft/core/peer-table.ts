/**
 * A leader's number per peer (nextIndex, matchIndex, ackedSeq), held by the peer's
 * position in cfg.peers instead of in a Map keyed by name: the leader looks these up
 * several times per message, and a Map lookup hashes and probes where a slot read
 * does not. The core finds a sender's position once (indexOf: a few compares, as
 * isOtherPeer) and then reads and writes slots.
 *
 * Reads like a Map<string, number> for tests and tools (get, has, size, entries,
 * values, iteration), with one difference: entries come in peer order, not in the
 * order they were first set. Only cluster members have slots: setting another name
 * throws (the core only ever records members).
 */
/** Position of `peer` in `peers`, or -1: a loop of compares (includes/indexOf were a builtin call on every message). */
export function peerIndex(peers: readonly string[], peer: string): number {
  for (let i = 0; i < peers.length; i++) if (peers[i] === peer) return i;
  return -1;
}

export class PeerTable {
  readonly #peers: readonly string[];
  /** The value at each peer's position; `present` says whether it is set. */
  readonly #values: number[];
  readonly #present: boolean[];
  #size = 0;

  constructor(peers: readonly string[]) {
    this.#peers = peers;
    this.#values = new Array<number>(peers.length).fill(0);
    this.#present = new Array<boolean>(peers.length).fill(false);
  }

  /** Position of `peer` in cfg.peers, or -1. */
  indexOf(peer: string): number {
    return peerIndex(this.#peers, peer);
  }

  /** The value at position `i`, or `absent` if none is set there. */
  at(i: number, absent: number): number {
    return this.#present[i] ? this.#values[i]! : absent;
  }

  setAt(i: number, value: number): void {
    if (!this.#present[i]) {
      this.#present[i] = true;
      this.#size++;
    }
    this.#values[i] = value;
  }

  /** How many set values are at least `v`. */
  countAtLeast(v: number): number {
    let n = 0;
    for (let i = 0; i < this.#values.length; i++) if (this.#present[i] && this.#values[i]! >= v) n++;
    return n;
  }

  // --- the Map-like side, for tests and cold paths ---

  get size(): number {
    return this.#size;
  }

  get(peer: string): number | undefined {
    const i = this.indexOf(peer);
    return i >= 0 && this.#present[i] ? this.#values[i] : undefined;
  }

  has(peer: string): boolean {
    const i = this.indexOf(peer);
    return i >= 0 && this.#present[i]!;
  }

  set(peer: string, value: number): this {
    const i = this.indexOf(peer);
    if (i < 0) throw new Error(`PeerTable: ${peer} is not a member (${this.#peers.join(", ")})`);
    this.setAt(i, value);
    return this;
  }

  *entries(): IterableIterator<[string, number]> {
    for (let i = 0; i < this.#peers.length; i++) if (this.#present[i]) yield [this.#peers[i]!, this.#values[i]!];
  }

  *values(): IterableIterator<number> {
    for (let i = 0; i < this.#peers.length; i++) if (this.#present[i]) yield this.#values[i]!;
  }

  [Symbol.iterator](): IterableIterator<[string, number]> {
    return this.entries();
  }

  /** A copy with the same members and entries. */
  clone(): PeerTable {
    const c = new PeerTable(this.#peers);
    for (let i = 0; i < this.#peers.length; i++) if (this.#present[i]) c.setAt(i, this.#values[i]!);
    return c;
  }
}
