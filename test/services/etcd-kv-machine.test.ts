import { describe, expect, it } from "vitest";
import { EtcdKv, type EtcdCmd, type KvOp, type Compare } from "../../designs/etcd-lease/kv.js";

/**
 * EtcdKv's apply, command by command (designs/etcd-lease/kv.ts): the revision rule, leases
 * and their keys, each compare target and operator, ranges. Complements
 * test/designs/etcd-lease-kv.test.ts (the Mutex's transactions).
 */
const txn = (success: KvOp[], compare: Compare[] = [], failure: KvOp[] = []): EtcdCmd => ({ kind: "txn", compare, success, failure });
const put = (key: string, value = "v", lease?: number): KvOp => ({ op: "put", key, value, ...(lease !== undefined ? { lease } : {}) });

function kvWith(cmds: EtcdCmd[]): EtcdKv {
  const kv = new EtcdKv();
  cmds.forEach((c, i) => kv.apply(c, i + 1));
  return kv;
}

describe("EtcdKv leases", () => {
  it("a grant answers its log index as the lease id, at the unchanged revision, with no events", () => {
    const kv = kvWith([txn([put("/a")])]);
    expect(kv.apply({ kind: "leaseGrant", ttlMs: 500, owner: "c9" }, 7)).toEqual({ ok: true, revision: 1, leaseId: 7, events: [] });
    expect(kv.leases.get(7)).toEqual({ id: 7, ttlMs: 500, owner: "c9", keys: new Set() });
  });

  it("revoking a lease with no keys keeps the revision; with keys, one new revision deletes them all, in key order", () => {
    const kv = kvWith([
      { kind: "leaseGrant", ttlMs: 1, owner: "c" },
      { kind: "leaseGrant", ttlMs: 1, owner: "c" },
    ]);
    kv.apply(txn([put("/z", "v", 2), put("/b", "v", 2), put("/free")]), 3);
    expect(kv.revision).toBe(1);
    expect(kv.apply({ kind: "leaseRevoke", leaseId: 1 }, 4)).toEqual({ ok: true, revision: 1, events: [] });
    expect(kv.apply({ kind: "leaseRevoke", leaseId: 2 }, 5)).toEqual({
      ok: true,
      revision: 2,
      events: [
        { type: "delete", key: "/b", revision: 2 },
        { type: "delete", key: "/z", revision: 2 },
      ],
    });
    expect(kv.get("/b")).toBeUndefined();
    expect(kv.get("/free")).toBeDefined();
    expect([...kv.deadLeases]).toEqual([1, 2]);
    expect(kv.apply({ kind: "leaseRevoke", leaseId: 2 }, 6)).toEqual({ ok: false, error: "lease-not-found", revision: 2, events: [] });
  });

  it("a key moved to another lease (or to none) is no longer deleted by its old lease; one kept on its lease still is", () => {
    const kv = kvWith([
      { kind: "leaseGrant", ttlMs: 1, owner: "c" },
      { kind: "leaseGrant", ttlMs: 1, owner: "c" },
    ]);
    kv.apply(txn([put("/moved", "v", 1), put("/none", "v", 1), put("/kept", "v", 1)]), 3);
    kv.apply(txn([put("/moved", "w", 2), put("/none", "w"), put("/kept", "w", 1)]), 4);
    expect([...kv.leases.get(1)!.keys]).toEqual(["/kept"]);
    expect([...kv.leases.get(2)!.keys]).toEqual(["/moved"]);
    kv.apply({ kind: "leaseRevoke", leaseId: 1 }, 5);
    expect(kv.get("/moved")).toMatchObject({ value: "w", lease: 2 });
    expect(kv.get("/none")).toMatchObject({ value: "w", lease: 0 });
    expect(kv.get("/kept")).toBeUndefined();
  });

  it("a key deleted and put again without a lease is not deleted when its old lease goes", () => {
    const kv = kvWith([{ kind: "leaseGrant", ttlMs: 1, owner: "c" }]);
    kv.apply(txn([put("/k", "v", 1)]), 2);
    kv.apply(txn([{ op: "delete", key: "/k" }]), 3);
    expect(kv.leases.get(1)!.keys.size).toBe(0);
    kv.apply(txn([put("/k", "again")]), 4);
    kv.apply({ kind: "leaseRevoke", leaseId: 1 }, 5);
    expect(kv.get("/k")).toMatchObject({ value: "again" });
  });

  it("a put naming an unknown lease fails the whole transaction, changing nothing; lease 0 means none", () => {
    const kv = kvWith([txn([put("/a")])]);
    expect(kv.apply(txn([put("/b"), put("/c", "v", 42)]), 2)).toEqual({ ok: false, error: "lease-not-found", revision: 1, events: [] });
    expect(kv.get("/b")).toBeUndefined();
    expect(kv.apply(txn([put("/b", "v", 0)]), 3)).toMatchObject({ ok: true, revision: 2 });
    // The branch taken is the one checked: a bad lease in the branch not taken is harmless.
    expect(kv.apply(txn([put("/d")], [], [put("/e", "v", 42)]), 4)).toMatchObject({ ok: true, succeeded: true });
    expect(kv.apply(txn([put("/d", "v", 42)], [{ key: "/zz", target: "version", cmp: "=", value: 9 }], [put("/e")]), 5)).toMatchObject({
      ok: true,
      succeeded: false,
    });
  });
});

describe("EtcdKv transactions", () => {
  it("moves the revision only for writes: a put, or a delete of a key that exists; answers each op", () => {
    const kv = kvWith([txn([put("/a")])]);
    expect(kv.apply(txn([{ op: "delete", key: "/missing" }]), 2)).toEqual({
      ok: true,
      revision: 1,
      succeeded: true,
      responses: [{ op: "delete", deleted: 0 }],
      events: [],
    });
    expect(kv.apply(txn([{ op: "delete", key: "/a" }]), 3)).toEqual({
      ok: true,
      revision: 2,
      succeeded: true,
      responses: [{ op: "delete", deleted: 1 }],
      events: [{ type: "delete", key: "/a", revision: 2 }],
    });
    expect(kv.get("/a")).toBeUndefined();
    expect(kv.apply(txn([put("/b"), put("/c")]), 4)).toEqual({
      ok: true,
      revision: 3,
      succeeded: true,
      responses: [{ op: "put" }, { op: "put" }],
      events: [
        { type: "put", key: "/b", revision: 3 },
        { type: "put", key: "/c", revision: 3 },
      ],
    });
  });

  it("compares each target of an existing key, and a missing key as value '', revisions and version 0", () => {
    const kv = kvWith([txn([put("/k", "m")]), txn([put("/other")]), txn([put("/k", "n")])]);
    // /k: created at 1, modified at 3, version 2, value "n".
    const holds = (c: Omit<Compare, "key">, key = "/k") =>
      kv.apply(txn([], [{ key, ...c }]), 99).ok && (kv.apply(txn([], [{ key, ...c }]), 99) as { succeeded: boolean }).succeeded;
    expect(holds({ target: "value", cmp: "=", value: "n" })).toBe(true);
    expect(holds({ target: "value", cmp: "=", value: "m" })).toBe(false);
    expect(holds({ target: "createRevision", cmp: "=", value: 1 })).toBe(true);
    expect(holds({ target: "createRevision", cmp: "=", value: 3 })).toBe(false);
    expect(holds({ target: "modRevision", cmp: "=", value: 3 })).toBe(true);
    expect(holds({ target: "modRevision", cmp: "=", value: 1 })).toBe(false);
    expect(holds({ target: "version", cmp: "=", value: 2 })).toBe(true);
    expect(holds({ target: "version", cmp: "=", value: 3 })).toBe(false);
    expect(holds({ target: "value", cmp: "=", value: "" }, "/none")).toBe(true);
    expect(holds({ target: "value", cmp: "!=", value: "" }, "/none")).toBe(false);
    expect(holds({ target: "createRevision", cmp: "=", value: 0 }, "/none")).toBe(true);
    expect(holds({ target: "modRevision", cmp: "=", value: 0 }, "/none")).toBe(true);
    expect(holds({ target: "version", cmp: "=", value: 0 }, "/none")).toBe(true);
  });

  it("applies each operator: = != < >, strictly", () => {
    const kv = kvWith([txn([put("/k")]), txn([put("/k")])]); // version 2
    const holds = (cmp: Compare["cmp"], value: number) =>
      (kv.apply(txn([], [{ key: "/k", target: "version", cmp, value }]), 99) as { succeeded: boolean }).succeeded;
    expect([holds("=", 2), holds("=", 1)]).toEqual([true, false]);
    expect([holds("!=", 1), holds("!=", 2)]).toEqual([true, false]);
    expect([holds("<", 3), holds("<", 2), holds("<", 1)]).toEqual([true, false, false]);
    expect([holds(">", 1), holds(">", 2), holds(">", 3)]).toEqual([true, false, false]);
    // Every compare must hold.
    expect(
      (
        kv.apply(
          txn(
            [],
            [
              { key: "/k", target: "version", cmp: "=", value: 2 },
              { key: "/k", target: "version", cmp: "=", value: 1 },
            ],
          ),
          99,
        ) as { succeeded: boolean }
      ).succeeded,
    ).toBe(false);
  });
});

describe("EtcdKv ranges", () => {
  // Created in the order /p/c (rev 1), /p/a (2), /q (3), /p/b (4).
  const kv = kvWith([txn([put("/p/c")]), txn([put("/p/a")]), txn([put("/q")]), txn([put("/p/b")])]);
  const keys = (o: Omit<Extract<KvOp, { op: "range" }>, "op">) => kv.range({ op: "range", ...o }).map((x) => x.key);

  it("reads one key, or nothing for a missing one", () => {
    expect(keys({ key: "/q" })).toEqual(["/q"]);
    expect(keys({ key: "/p" })).toEqual([]);
    expect(kv.range({ op: "range", key: "/q" })).toEqual([{ key: "/q", value: "v", createRevision: 3, modRevision: 3, version: 1, lease: 0 }]);
  });

  it("reads a prefix, sorted by key unless asked by create revision, ascending or descending", () => {
    expect(keys({ key: "/p/", prefix: true })).toEqual(["/p/a", "/p/b", "/p/c"]);
    expect(keys({ key: "/p/", prefix: true, sort: "createAsc" })).toEqual(["/p/c", "/p/a", "/p/b"]);
    expect(keys({ key: "/p/", prefix: true, sort: "createDesc" })).toEqual(["/p/b", "/p/a", "/p/c"]);
    expect(keys({ key: "/", prefix: true })).toEqual(["/p/a", "/p/b", "/p/c", "/q"]);
  });

  it("applies maxCreateRevision and a positive limit (0: no limit)", () => {
    expect(keys({ key: "/p/", prefix: true, maxCreateRevision: 2 })).toEqual(["/p/a", "/p/c"]);
    expect(keys({ key: "/p/", prefix: true, sort: "createAsc", limit: 1 })).toEqual(["/p/c"]);
    expect(keys({ key: "/p/", prefix: true, sort: "createDesc", limit: 2 })).toEqual(["/p/b", "/p/a"]);
    expect(keys({ key: "/p/", prefix: true, limit: 0 })).toEqual(["/p/a", "/p/b", "/p/c"]);
  });

  it("returns copies: changing one does not change the store", () => {
    const [x] = kv.range({ op: "range", key: "/q" });
    x!.value = "changed";
    expect(kv.get("/q")!.value).toBe("v");
    const g = kv.get("/q")!;
    g.value = "changed";
    expect(kv.get("/q")!.value).toBe("v");
  });
});
