import { describe, expect, it } from "vitest";
import { ZkTree, sequenceOf, parentOf, baseName, type ZkCmd } from "../../designs/raft-zk/tree.js";

/**
 * ZkTree's apply, command by command (designs/raft-zk/tree.ts): paths, parents, versions,
 * events, ephemerals and their sessions, the lock-delay's lingering nodes. Complements
 * test/designs/raft-zk-tree.test.ts.
 */
const mk = (sessionId: number, path: string, o: Partial<{ ephemeral: boolean; sequential: boolean; parents: boolean; data: string }> = {}): ZkCmd => ({
  kind: "create",
  sessionId,
  path,
  data: o.data ?? "",
  ephemeral: o.ephemeral ?? false,
  sequential: o.sequential ?? false,
  parents: o.parents ?? false,
});

class Run {
  readonly t = new ZkTree();
  apply(c: ZkCmd) {
    return this.t.apply(c, this.t.lastZxid + 1);
  }
  /** A tree with sessions 1 and 2. */
  static withSessions(): Run {
    const r = new Run();
    r.apply({ kind: "createSession", timeoutMs: 1000, owner: "a" });
    r.apply({ kind: "createSession", timeoutMs: 1000, owner: "b" });
    return r;
  }
}

describe("paths", () => {
  it("parentOf, baseName and sequenceOf (the last ten digits of a name, nothing else)", () => {
    expect([parentOf("/a"), parentOf("/a/b"), parentOf("/")]).toEqual(["/", "/a", "/"]);
    expect([baseName("/a/b"), baseName("/a")]).toEqual(["b", "a"]);
    expect(sequenceOf("n-0000000012")).toBe(12);
    expect(sequenceOf("n-00000000123")).toBe(123);
    expect(sequenceOf("n-12")).toBeNaN();
    expect(sequenceOf("0000000012-n")).toBeNaN();
  });

  it("parentOf answers the same past its cache's bound and on repeated paths", () => {
    // More distinct paths than the cache holds (4096): it is cleared, never wrong.
    for (let i = 0; i < 5000; i++) expect(parentOf(`/d${i % 7}/n${i}`)).toBe(`/d${i % 7}`);
    for (let round = 0; round < 2; round++) expect([parentOf("/x/y/z"), parentOf("/x"), parentOf("/")]).toEqual(["/x/y", "/", "/"]);
  });

  it("parentOf's last-parent memo never answers for a sibling of the same length or a deeper path", () => {
    expect(parentOf("/a/b/c")).toBe("/a/b");
    // Same slash position, another directory: the memo ("/a/b") must not be taken.
    expect(parentOf("/a/c/d")).toBe("/a/c");
    expect(parentOf("/a/c/e")).toBe("/a/c");
    expect(parentOf("/a/c")).toBe("/a");
    expect(parentOf("/a/cd/e")).toBe("/a/cd");
    expect(parentOf("/a/c/f/g")).toBe("/a/c/f");
  });

  it("parentOf and baseName are the plain split on random paths, repeated, interleaved and past the split memo's bound", () => {
    let x = 5;
    const r = () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const seen: string[] = [];
    for (let i = 0; i < 3000; i++) {
      // A recent path again (as the other replicas ask), or a fresh one of 1-4 segments, some alike in length.
      const path =
        seen.length > 0 && r() < 0.5
          ? seen[seen.length - 1 - Math.floor(r() * Math.min(seen.length, 40))]!
          : "/" +
            Array.from({ length: 1 + Math.floor(r() * 4) }, () => ["a", "b", "cd", "lock-0000000001", String(Math.floor(r() * 50))][Math.floor(r() * 5)]).join(
              "/",
            );
      seen.push(path);
      const slash = path.lastIndexOf("/");
      const ask = r() < 0.5 ? [parentOf(path), baseName(path)] : [baseName(path), parentOf(path)].reverse();
      expect(ask, path).toEqual([slash <= 0 ? "/" : path.slice(0, slash), path.slice(slash + 1)]);
    }
  });

  it("sequenceOf takes ASCII digits only, as the regex \\d did", () => {
    expect(sequenceOf("0000000000")).toBe(0);
    expect(sequenceOf("x9999999999")).toBe(9999999999);
    expect(sequenceOf("n-000000001/")).toBeNaN();
    expect(sequenceOf("n-00000000:1")).toBeNaN();
    expect(sequenceOf("n-\u0660\u0660\u0660\u0660\u0660\u0660\u0660\u0660\u0661\u0662")).toBeNaN(); // Arabic-Indic digits
    expect(sequenceOf("n-000000001")).toBeNaN();
  });

  it("refuses a bad path: empty, relative, trailing or double slash, the root itself", () => {
    const r = Run.withSessions();
    for (const p of ["", "a", "/a/", "//a", "/a//b", "/"]) expect(r.apply(mk(1, p)), JSON.stringify(p)).toMatchObject({ ok: false, error: "bad-path" });
    // Relative even with parents asked for (the leading slash is checked, not only "some slash").
    expect(r.apply(mk(1, "a/b", { parents: true }))).toMatchObject({ ok: false, error: "bad-path" });
    expect(r.apply(mk(1, "/a"))).toMatchObject({ ok: true, path: "/a" });
    expect(r.t.get("/")).toEqual({ data: "", stat: { czxid: 0, mzxid: 0, version: 0, ephemeralOwner: 0, numChildren: 1 } });
  });
});

describe("create", () => {
  it("with parents: each missing parent is a persistent empty node, created top down before the node, each with an event", () => {
    const r = Run.withSessions();
    const res = r.apply(mk(1, "/a/b/c", { parents: true, data: "x", ephemeral: true }));
    expect(res).toMatchObject({ ok: true, path: "/a/b/c", stat: { czxid: 3, ephemeralOwner: 1 } });
    expect(res.events).toEqual([
      { type: "created", path: "/a" },
      { type: "created", path: "/a/b" },
      { type: "created", path: "/a/b/c" },
    ]);
    expect(r.t.get("/a")).toEqual({ data: "", stat: { czxid: 3, mzxid: 3, version: 0, ephemeralOwner: 0, numChildren: 1 } });
    expect(r.t.get("/a/b/c")!.data).toBe("x");
    expect(r.apply(mk(1, "/x/y"))).toMatchObject({ ok: false, error: "no-parent" });
    expect(r.apply(mk(1, "/a/b/c/d"))).toMatchObject({ ok: false, error: "ephemeral-parent" });
  });

  it("lists children sorted, whatever the creation order", () => {
    const r = Run.withSessions();
    r.apply(mk(1, "/p/b", { parents: true }));
    r.apply(mk(1, "/p/a"));
    r.apply(mk(1, "/p/c"));
    expect(r.t.getChildren("/p")).toEqual(["a", "b", "c"]);
  });
});

it("a leaf's first child is its own: other leaves, in this tree and another, stay childless", () => {
  const r = Run.withSessions();
  const other = Run.withSessions();
  for (const run of [r, other]) {
    run.apply(mk(1, "/a"));
    run.apply(mk(1, "/b"));
  }
  r.apply(mk(1, "/a/x"));
  expect(r.t.getChildren("/a")).toEqual(["x"]);
  expect(r.t.getChildren("/b")).toEqual([]);
  expect(r.t.exists("/b")!.numChildren).toBe(0);
  expect(other.t.getChildren("/a")).toEqual([]);
  // A node that had children and lost them is a leaf again, and can take new ones.
  r.apply({ kind: "delete", sessionId: 1, path: "/a/x", version: -1 });
  expect(r.apply({ kind: "delete", sessionId: 1, path: "/a", version: -1 }).ok).toBe(true);
  r.apply(mk(1, "/b/y"));
  expect(r.t.getChildren("/b")).toEqual(["y"]);
  expect(other.t.getChildren("/b")).toEqual([]);
});

describe("delete and set", () => {
  it("delete: a dead session, a missing node and the root are refused; version -1 is any; a wrong version and children refuse", () => {
    const r = Run.withSessions();
    r.apply(mk(1, "/p/c", { parents: true }));
    r.apply({ kind: "set", sessionId: 1, path: "/p/c", data: "v", version: 0 });
    r.apply({ kind: "closeSession", sessionId: 2 });
    expect(r.apply({ kind: "delete", sessionId: 2, path: "/p/c", version: -1 })).toMatchObject({ ok: false, error: "session-expired" });
    expect(r.apply({ kind: "delete", sessionId: 1, path: "/nope", version: -1 })).toMatchObject({ ok: false, error: "no-node" });
    expect(r.apply({ kind: "delete", sessionId: 1, path: "/", version: -1 })).toMatchObject({ ok: false, error: "no-node" });
    expect(r.apply({ kind: "delete", sessionId: 1, path: "/p", version: -1 })).toMatchObject({ ok: false, error: "not-empty" });
    expect(r.apply({ kind: "delete", sessionId: 1, path: "/p/c", version: 0 })).toMatchObject({ ok: false, error: "bad-version" });
    expect(r.apply({ kind: "delete", sessionId: 1, path: "/p/c", version: 1 })).toEqual({ ok: true, events: [{ type: "deleted", path: "/p/c" }] });
    expect(r.apply({ kind: "delete", sessionId: 1, path: "/p", version: -1 })).toMatchObject({ ok: true });
    expect(r.t.getChildren("/")).toEqual([]);
  });

  it("set: a dead session and a missing node are refused; version -1 is any; it bumps the version and mzxid and reports a change", () => {
    const r = Run.withSessions();
    r.apply(mk(1, "/n"));
    r.apply({ kind: "closeSession", sessionId: 2 });
    expect(r.apply({ kind: "set", sessionId: 2, path: "/n", data: "x", version: -1 })).toMatchObject({ ok: false, error: "session-expired" });
    expect(r.apply({ kind: "set", sessionId: 1, path: "/m", data: "x", version: -1 })).toMatchObject({ ok: false, error: "no-node" });
    expect(r.apply({ kind: "set", sessionId: 1, path: "/n", data: "x", version: 3 })).toMatchObject({ ok: false, error: "bad-version" });
    // Refused commands take a zxid too (each is a log entry): this set is the 8th.
    const s = r.apply({ kind: "set", sessionId: 1, path: "/n", data: "x", version: -1 });
    expect(s).toEqual({ ok: true, stat: { czxid: 3, mzxid: 8, version: 1, ephemeralOwner: 0, numChildren: 0 }, events: [{ type: "changed", path: "/n" }] });
    expect(r.apply({ kind: "set", sessionId: 1, path: "/n", data: "y", version: 1 })).toMatchObject({ ok: true, stat: { version: 2 } });
    expect(r.t.get("/n")!.data).toBe("y");
  });
});

describe("ephemerals and sessions", () => {
  it("an ephemeral deleted by hand is no longer its session's: a persistent node later made at that path survives the session", () => {
    const r = Run.withSessions();
    r.apply(mk(1, "/e", { ephemeral: true }));
    r.apply({ kind: "delete", sessionId: 1, path: "/e", version: -1 });
    expect(r.t.sessions.get(1)!.ephemerals.size).toBe(0);
    r.apply(mk(2, "/e"));
    const res = r.apply({ kind: "closeSession", sessionId: 1 });
    expect(res).toEqual({ ok: true, events: [] });
    expect(r.t.exists("/e")).toMatchObject({ ephemeralOwner: 0 });
  });

  it("a session's ephemerals go in a fixed order on close: longest path first, then reverse name order", () => {
    const r = Run.withSessions();
    r.apply(mk(1, "/a", { parents: true }));
    for (const p of ["/a/x", "/b", "/a/yy", "/c"]) r.apply(mk(1, p, { ephemeral: true }));
    const res = r.apply({ kind: "closeSession", sessionId: 1 });
    expect(res.events.map((e) => e.path)).toEqual(["/a/yy", "/a/x", "/c", "/b"]);
    expect(r.t.exists("/a")).toBeDefined();
  });

  it("an expiry with lingerEphemerals keeps the nodes until endLockDelay; a close or a plain expiry frees at once", () => {
    const r = Run.withSessions();
    r.apply(mk(1, "/l1", { ephemeral: true }));
    r.apply(mk(2, "/l2", { ephemeral: true }));
    r.apply({ kind: "createSession", timeoutMs: 1000, owner: "c" }); // session 5
    r.apply(mk(5, "/l5", { ephemeral: true }));
    expect(r.apply({ kind: "expireSession", sessionId: 1, lingerEphemerals: true })).toEqual({ ok: true, events: [] });
    expect(r.t.exists("/l1")).toBeDefined();
    expect([...r.t.lingering.keys()]).toEqual([1]);
    expect(r.t.sessions.has(1)).toBe(false);
    expect(r.apply({ kind: "expireSession", sessionId: 2 })).toEqual({ ok: true, events: [{ type: "deleted", path: "/l2" }] });
    // A close with the flag set by mistake still frees (only an expiry lingers).
    expect(r.apply({ kind: "closeSession", sessionId: 5, lingerEphemerals: true } as ZkCmd)).toEqual({ ok: true, events: [{ type: "deleted", path: "/l5" }] });
    expect(r.t.lingering.size).toBe(1);
    expect(r.apply({ kind: "endLockDelay", sessionId: 1 })).toEqual({ ok: true, events: [{ type: "deleted", path: "/l1" }] });
    expect(r.t.exists("/l1")).toBeUndefined();
    expect(r.t.lingering.size).toBe(0);
    expect(r.apply({ kind: "endLockDelay", sessionId: 1 })).toEqual({ ok: false, error: "no-node", events: [] });
    expect(r.apply({ kind: "endLockDelay", sessionId: 2 })).toEqual({ ok: false, error: "no-node", events: [] });
  });

  it("closing or expiring an unknown or dead session is refused as session-expired", () => {
    const r = Run.withSessions();
    expect(r.apply({ kind: "closeSession", sessionId: 9 })).toEqual({ ok: false, error: "session-expired", events: [] });
    r.apply({ kind: "closeSession", sessionId: 1 });
    expect(r.apply({ kind: "expireSession", sessionId: 1 })).toEqual({ ok: false, error: "session-expired", events: [] });
    expect(r.apply(mk(1, "/x"))).toEqual({ ok: false, error: "session-expired", events: [] });
  });

  it("counts nodes, the root included", () => {
    const r = Run.withSessions();
    expect(r.t.nodeCount).toBe(1);
    r.apply(mk(1, "/a/b", { parents: true }));
    expect(r.t.nodeCount).toBe(3);
  });
});

describe("names shared across replicas", () => {
  it("two trees applying the same sequential create get the same names; other counters or prefixes get their own", () => {
    const a = new ZkTree();
    const b = new ZkTree();
    for (const t of [a, b]) t.apply({ kind: "createSession", timeoutMs: 1000, owner: "c1" }, 1);
    const cmd: ZkCmd = { kind: "create", sessionId: 1, path: "/locks/l/n-", data: "", ephemeral: true, sequential: true, parents: true };
    const ra = a.apply(cmd, 2) as { path: string };
    // b has one child more first: its counter is ahead, so the same command names another node.
    b.apply({ ...cmd, path: "/locks/l/m-" }, 2);
    const rb = b.apply(cmd, 3) as { path: string };
    expect(ra.path).toBe("/locks/l/n-0000000000");
    expect(rb.path).toBe("/locks/l/n-0000000001");
    expect(a.getChildren("/locks/l")).toEqual(["n-0000000000"]);
    expect(b.getChildren("/locks/l")).toEqual(["m-0000000000", "n-0000000001"]);
    // Same counter, same prefix: the same name in a third tree.
    const c = new ZkTree();
    c.apply({ kind: "createSession", timeoutMs: 1000, owner: "c1" }, 1);
    expect((c.apply(cmd, 2) as { path: string }).path).toBe(ra.path);
    expect([baseName("/x/y0000000001"), baseName("/x/y0000000002"), baseName("/x/y0000000001")]).toEqual(["y0000000001", "y0000000002", "y0000000001"]);
  });
});
