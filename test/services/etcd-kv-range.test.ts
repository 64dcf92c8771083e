import { describe, expect, it } from "vitest";
import { EtcdKv, type EtcdCmd, type RangeOp } from "../../designs/etcd-lease/kv.js";

/**
 * EtcdKv.range's one-pass answer for a prefix sorted by create revision with limit 1
 * (the lock recipe's question) against the general path's first element (filter, stable
 * sort, slice): the same key, ties in create revision (several keys put in one
 * transaction) in the store's order, a copy.
 */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe("EtcdKv.range, limit 1 by create revision", () => {
  it("is the first of the sorted range, for both orders, with and without a revision bound", () => {
    const keys = ["/l/a", "/l/b", "/l/c", "/l/d", "/m/a", "/l"];
    let ties = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const r = lcg(seed);
      const kv = new EtcdKv();
      const pick = () => keys[Math.floor(r() * keys.length)]!;
      for (let i = 1; i <= 60; i++) {
        // One or two puts (two: one revision, a tie) or a delete, unconditionally.
        const ops =
          r() < 0.7
            ? [{ op: "put" as const, key: pick(), value: `v${i}` }, ...(r() < 0.4 ? [{ op: "put" as const, key: pick(), value: "w" }] : [])]
            : [{ op: "delete" as const, key: pick() }];
        if (ops.length === 2 && ops[0]!.key !== ops[1]!.key) ties++;
        const cmd: EtcdCmd = { kind: "txn", compare: [], success: ops, failure: [] };
        kv.apply(cmd, i);
        for (const prefix of ["/l/", "/l", "/m/", "/x"]) {
          for (const sort of ["createAsc", "createDesc"] as const) {
            for (const maxCreateRevision of [undefined, Math.floor(r() * (kv.revision + 2))]) {
              const q: RangeOp = { op: "range", key: prefix, prefix: true, sort, ...(maxCreateRevision !== undefined ? { maxCreateRevision } : {}) };
              const all = kv.range(q);
              const first = kv.range({ ...q, limit: 1 });
              expect(first, JSON.stringify(q)).toEqual(all.slice(0, 1));
              // A copy: writing it does not touch the store.
              if (first[0]) {
                first[0].value = "changed";
                expect(kv.get(first[0].key)!.value).not.toBe("changed");
              }
            }
          }
        }
      }
    }
    expect(ties).toBeGreaterThan(50);
  });
});
