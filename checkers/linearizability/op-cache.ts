/**
 * A value computed once per operation, for a model's step (which runs hundreds of
 * thousands of times and must not re-read an op's value each time). Slots are the op's
 * invoke index, dense in a history, with the op itself beside its value: a lookup is two
 * array reads, where a WeakMap's was a fifth of a register search's time. An op of
 * another history that shares an index is recomputed, so the cache is never wrong;
 * `clear` drops a finished history's ops so they are not kept alive.
 */
import type { Operation } from "../../sim/history.js";

export class OpCache<V> {
  private ops: (Operation | undefined)[] = [];
  private values: V[] = [];

  constructor(private readonly compute: (op: Operation) => V) {}

  get(op: Operation): V {
    const i = op.invoke.index;
    if (this.ops[i] === op) return this.values[i]!;
    const v = this.compute(op);
    this.ops[i] = op;
    this.values[i] = v;
    return v;
  }

  clear(): void {
    this.ops = [];
    this.values = [];
  }
}
