import { describe, expect, it } from "vitest";
import { EtcdKv, type EtcdCmd, type KvOp } from "../../designs/etcd-lease/kv.js";

function run(kv: EtcdKv, cmds: EtcdCmd[], from = 1) {
  return cmds.map((c, i) => kv.apply(c, from + i));
}
const grant = (owner = "c1"): EtcdCmd => ({ kind: "leaseGrant", ttlMs: 4000, owner });
const put = (key: string, lease?: number): EtcdCmd => ({
  kind: "txn",
  compare: [],
  success: [{ op: "put", key, value: "", ...(lease ? { lease } : {}) }],
  failure: [],
});
/** The Txn of concurrency.Mutex.Lock for `leaseId` under `pfx`. */
const lockTxn = (pfx: string, leaseId: number): EtcdCmd => {
  const myKey = `${pfx}${leaseId.toString(16)}`;
  const first: KvOp = { op: "range", key: pfx, prefix: true, sort: "createAsc", limit: 1 };
  return {
    kind: "txn",
    compare: [{ key: myKey, target: "createRevision", cmp: "=", value: 0 }],
    success: [{ op: "put", key: myKey, value: "", lease: leaseId }, first],
    failure: [{ op: "range", key: myKey }, first],
  };
};

describe("EtcdKv (the etcd-lease state machine)", () => {
  it("grows the revision by one per write transaction and keeps create/mod revisions and versions", () => {
    const kv = new EtcdKv();
    const [a, b, c] = run(kv, [put("/k"), put("/k"), put("/j")]);
    expect([a, b, c].map((r) => r.revision)).toEqual([1, 2, 3]);
    expect(kv.get("/k")).toMatchObject({ createRevision: 1, modRevision: 2, version: 2 });
    // A read-only transaction does not move the revision.
    const ro = kv.apply({ kind: "txn", compare: [], success: [{ op: "range", key: "/k" }], failure: [] }, 4);
    expect(ro.revision).toBe(3);
  });

  it("compares a missing key's create revision as 0 (the Mutex's Txn) and is idempotent on retry", () => {
    const kv = new EtcdKv();
    const [g] = run(kv, [grant()]);
    const id = g!.ok ? g!.leaseId! : 0;
    const first = kv.apply(lockTxn("/locks/l/", id), 2);
    expect(first).toMatchObject({ ok: true, succeeded: true, revision: 1 });
    const again = kv.apply(lockTxn("/locks/l/", id), 3);
    expect(again.ok && again.succeeded).toBe(false);
    // The Else branch returns our key (same create revision) and the owner: us.
    if (!again.ok) throw new Error("txn failed");
    expect(again.responses![0]).toMatchObject({ op: "range", kvs: [{ createRevision: 1 }] });
    expect(again.responses![1]).toMatchObject({ op: "range", kvs: [{ createRevision: 1 }] });
    expect(kv.revision).toBe(1);
  });

  it("orders lock waiters by create revision; the owner is the first created", () => {
    const kv = new EtcdKv();
    run(kv, [grant("a"), grant("b"), grant("c")]);
    const rs = [1, 2, 3].map((id, i) => kv.apply(lockTxn("/locks/l/", id), 10 + i));
    const owners = rs.map((r) => (r.ok && r.responses![1]!.op === "range" ? r.responses![1]!.kvs[0]!.key : ""));
    expect(owners).toEqual(["/locks/l/1", "/locks/l/1", "/locks/l/1"]);
    // waitDeletes' query: the key with the highest create revision below mine (c's is 3).
    const pred = kv.range({ op: "range", key: "/locks/l/", prefix: true, sort: "createDesc", limit: 1, maxCreateRevision: 3 - 1 });
    expect(pred.map((k) => k.key)).toEqual(["/locks/l/2"]);
  });

  it("revoking a lease deletes its keys in one revision, and later puts with it fail", () => {
    const kv = new EtcdKv();
    run(kv, [grant("a"), grant("b")]);
    run(kv, [put("/x", 1), put("/y", 1), put("/z", 2)], 3);
    const r = kv.apply({ kind: "leaseRevoke", leaseId: 1 }, 6);
    expect(r.ok).toBe(true);
    expect(r.events.map((e) => `${e.type} ${e.key} @${e.revision}`)).toEqual(["delete /x @4", "delete /y @4"]);
    expect(kv.get("/x")).toBeUndefined();
    expect(kv.get("/z")).toBeDefined();
    expect(kv.deadLeases.has(1)).toBe(true);
    expect(kv.apply(put("/w", 1), 7)).toMatchObject({ ok: false, error: "lease-not-found" });
    expect(kv.apply({ kind: "leaseRevoke", leaseId: 1 }, 8)).toMatchObject({ ok: false, error: "lease-not-found" });
  });

  it("a delete of a missing key is not a write", () => {
    const kv = new EtcdKv();
    const r = kv.apply({ kind: "txn", compare: [], success: [{ op: "delete", key: "/nope" }], failure: [] }, 1);
    expect(r).toMatchObject({ ok: true, revision: 0, responses: [{ op: "delete", deleted: 0 }] });
  });

  it("evaluates compares on value, version and mod revision", () => {
    const kv = new EtcdKv();
    run(kv, [{ kind: "txn", compare: [], success: [{ op: "put", key: "/k", value: "v" }], failure: [] }]);
    const t = (target: "value" | "version" | "modRevision", cmp: "=" | "!=" | "<" | ">", value: number | string) =>
      kv.apply({ kind: "txn", compare: [{ key: "/k", target, cmp, value }], success: [], failure: [] }, 9);
    expect(t("value", "=", "v")).toMatchObject({ succeeded: true });
    expect(t("value", "!=", "v")).toMatchObject({ succeeded: false });
    expect(t("version", ">", 0)).toMatchObject({ succeeded: true });
    expect(t("modRevision", "<", 1)).toMatchObject({ succeeded: false });
  });
});
