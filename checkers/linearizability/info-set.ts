/**
 * Sets of info ops (those of unknown outcome the search has linearized), hash-consed: a
 * set is a node of a binary trie over the op's index, and every node is made once, so
 * two equal sets are the same node however they were built and compare in O(1). A memo
 * hit used to compare two sets by walking both lists, which grows with the history (tens
 * of thousands of info ops linearized in a 1M-op history): a state's cost must not.
 * Adding an op makes at most one node per level of the trie (log2 of the ops).
 */
const NODE_KEY_SPAN = 1 << 26;

export class InfoSets {
  /** Node 0 is the empty set; 1..n are the one-op leaves (op i is node i + 1), implicit; inner nodes follow, stored from index 0. */
  private readonly left: number[] = [];
  private readonly right: number[] = [];
  private readonly sizes: number[] = [];
  private readonly interned = new Map<number | string, number>();
  private readonly depth: number;

  constructor(private readonly opCount: number) {
    this.depth = Math.max(1, Math.ceil(Math.log2(Math.max(2, opCount))));
  }

  size(set: number): number {
    return set === 0 ? 0 : set <= this.opCount ? 1 : this.sizes[set - this.opCount - 1]!;
  }

  /** The set with `op` added (op must not be in it). */
  add(set: number, op: number): number {
    return this.insert(set, op, 0);
  }

  private insert(node: number, op: number, level: number): number {
    if (level === this.depth) return op + 1;
    const bit = (op >>> (this.depth - 1 - level)) & 1;
    const inner = node - this.opCount - 1;
    const l = inner < 0 ? 0 : this.left[inner]!;
    const r = inner < 0 ? 0 : this.right[inner]!;
    return bit === 0 ? this.node(this.insert(l, op, level + 1), r) : this.node(l, this.insert(r, op, level + 1));
  }

  private node(l: number, r: number): number {
    // One number for the pair while both fit in 26 bits (a search that large has run out of memory long before).
    const key = l < NODE_KEY_SPAN && r < NODE_KEY_SPAN ? l * NODE_KEY_SPAN + r : `${l},${r}`;
    const hit = this.interned.get(key);
    if (hit !== undefined) return hit;
    const id = this.opCount + 1 + this.left.length;
    this.left.push(l);
    this.right.push(r);
    this.sizes.push(this.size(l) + this.size(r));
    this.interned.set(key, id);
    return id;
  }
}
