import { describe, expect, it } from "vitest";
import { ZkTree, sequenceOf, type ZkCmd } from "../../designs/raft-zk/tree.js";
import { parseRaftServiceOptions } from "../../services/raft-service/options.js";
import { InputError } from "../../sim/errors.js";

/** Apply commands with consecutive zxids, as the Raft log would. */
function run(tree: ZkTree, cmds: ZkCmd[], from = tree.lastZxid + 1) {
  return cmds.map((c, i) => tree.apply(c, from + i));
}

const session = (owner = "c1"): ZkCmd => ({ kind: "createSession", timeoutMs: 4000, owner });
const create = (sessionId: number, path: string, o: Partial<{ ephemeral: boolean; sequential: boolean; parents: boolean }> = {}): ZkCmd => ({
  kind: "create",
  sessionId,
  path,
  data: "",
  ephemeral: o.ephemeral ?? false,
  sequential: o.sequential ?? false,
  parents: o.parents ?? false,
});

describe("ZkTree (the Raft-ZK state machine)", () => {
  it("gives a session the zxid of its creation as id", () => {
    const t = new ZkTree();
    const [a, b] = run(t, [session("c1"), session("c2")]);
    expect(a).toMatchObject({ ok: true, sessionId: 1 });
    expect(b).toMatchObject({ ok: true, sessionId: 2 });
    expect([...t.sessions.keys()]).toEqual([1, 2]);
  });

  it("numbers sequential children per parent, in creation order, with the creating zxid as czxid", () => {
    const t = new ZkTree();
    run(t, [session()]);
    const rs = run(t, [
      create(1, "/locks/a/x-", { ephemeral: true, sequential: true, parents: true }),
      create(1, "/locks/a/x-", { ephemeral: true, sequential: true }),
      create(1, "/locks/b/x-", { ephemeral: true, sequential: true, parents: true }),
    ]);
    expect(rs.map((r) => (r.ok ? r.path : r.error))).toEqual(["/locks/a/x-0000000000", "/locks/a/x-0000000001", "/locks/b/x-0000000000"]);
    expect(rs.map((r) => (r.ok ? r.stat!.czxid : -1))).toEqual([2, 3, 4]);
    expect(t.getChildren("/locks/a")).toEqual(["x-0000000000", "x-0000000001"]);
    expect(sequenceOf("x-0000000042")).toBe(42);
    expect(Number.isNaN(sequenceOf("x-"))).toBe(true);
  });

  it("requires parents unless asked to create them, and refuses children of ephemerals", () => {
    const t = new ZkTree();
    run(t, [session()]);
    const [noParent, eph, child] = run(t, [create(1, "/a/b"), create(1, "/e", { ephemeral: true }), create(1, "/e/c")]);
    expect(noParent).toMatchObject({ ok: false, error: "no-parent" });
    expect(eph).toMatchObject({ ok: true, path: "/e" });
    expect(child).toMatchObject({ ok: false, error: "ephemeral-parent" });
    expect(run(t, [create(1, "/e")])[0]).toMatchObject({ ok: false, error: "node-exists" });
    expect(run(t, [create(1, "bad")])[0]).toMatchObject({ ok: false, error: "bad-path" });
  });

  it("checks the expected version on delete and set", () => {
    const t = new ZkTree();
    run(t, [session(), create(1, "/n")]);
    expect(run(t, [{ kind: "set", sessionId: 1, path: "/n", data: "v1", version: 0 }])[0]).toMatchObject({ ok: true, stat: { version: 1 } });
    expect(run(t, [{ kind: "set", sessionId: 1, path: "/n", data: "v2", version: 0 }])[0]).toMatchObject({ ok: false, error: "bad-version" });
    expect(run(t, [{ kind: "delete", sessionId: 1, path: "/n", version: 0 }])[0]).toMatchObject({ ok: false, error: "bad-version" });
    expect(t.get("/n")?.data).toBe("v1");
    expect(run(t, [{ kind: "delete", sessionId: 1, path: "/n", version: 1 }])[0]).toMatchObject({ ok: true });
    expect(t.exists("/n")).toBeUndefined();
    expect(run(t, [{ kind: "delete", sessionId: 1, path: "/n", version: -1 }])[0]).toMatchObject({ ok: false, error: "no-node" });
  });

  it("refuses to delete a node with children", () => {
    const t = new ZkTree();
    run(t, [session(), create(1, "/p/c", { parents: true })]);
    expect(run(t, [{ kind: "delete", sessionId: 1, path: "/p", version: -1 }])[0]).toMatchObject({ ok: false, error: "not-empty" });
  });

  it("deletes a session's ephemerals (and only those) when it expires, reporting each deletion for watches", () => {
    const t = new ZkTree();
    run(t, [session("c1"), session("c2")]);
    run(t, [
      create(1, "/locks/l/n-", { ephemeral: true, sequential: true, parents: true }),
      create(2, "/locks/l/n-", { ephemeral: true, sequential: true }),
      create(1, "/persistent"),
    ]);
    const r = run(t, [{ kind: "expireSession", sessionId: 1 }])[0]!;
    expect(r.ok).toBe(true);
    expect(r.events).toEqual([{ type: "deleted", path: "/locks/l/n-0000000000" }]);
    expect(t.getChildren("/locks/l")).toEqual(["n-0000000001"]);
    expect(t.exists("/persistent")).toBeDefined();
    expect(t.sessions.has(1)).toBe(false);
    expect(t.deadSessions.has(1)).toBe(true);
    // A dead session can do nothing more, and expiring it again is a no-op.
    expect(run(t, [create(1, "/x")])[0]).toMatchObject({ ok: false, error: "session-expired" });
    expect(run(t, [{ kind: "expireSession", sessionId: 1 }])[0]).toMatchObject({ ok: false, error: "session-expired" });
  });

  it("is deterministic: the same log gives the same tree on every replica", () => {
    const log: ZkCmd[] = [
      session("a"),
      session("b"),
      create(1, "/l/x-", { ephemeral: true, sequential: true, parents: true }),
      create(2, "/l/x-", { ephemeral: true, sequential: true }),
      { kind: "closeSession", sessionId: 1 },
    ];
    const a = new ZkTree();
    const b = new ZkTree();
    const ra = run(a, log);
    const rb = run(b, log);
    expect(ra).toEqual(rb);
    expect(a.getChildren("/l")).toEqual(b.getChildren("/l"));
    expect(a.getChildren("/l")).toEqual(["x-0000000001"]);
  });
});

describe("Raft service options", () => {
  const parse = (raw: unknown) => parseRaftServiceOptions(raw, "s.json", "designOptions", ["followerSessionExpiry"], "zk");
  it("defaults to 5 nodes and derives heartbeat and margin from the session timeout", () => {
    const o = parse({ sessionTimeoutMs: 8000 });
    expect(o).toMatchObject({ nodes: 5, sessionTimeoutMs: 8000, heartbeatIntervalMs: 1000, clockDriftMarginMs: 800, bugs: { followerSessionExpiry: false } });
  });
  it.each([
    [{ nodes: 4 }, "designOptions.nodes"],
    [{ nodes: 0 }, "designOptions.nodes"],
    [{ sessionTimeoutMs: 1000, heartbeatIntervalMs: 1000 }, "designOptions.heartbeatIntervalMs"],
    [{ electionTimeoutMsMin: 300, electionTimeoutMsMax: 200 }, "designOptions.electionTimeoutMsMax"],
    [{ bugs: { noSuchBug: true } }, "designOptions.bugs.noSuchBug"],
    [{ bugs: { followerSessionExpiry: "yes" } }, "designOptions.bugs.followerSessionExpiry"],
    [{ preferredLeader: "zk-9" }, "designOptions.preferredLeader"],
    [{ sessionTimeout: 5 }, "designOptions.sessionTimeout"],
  ])("rejects %j naming %s", (raw, field) => {
    expect(() => parse(raw)).toThrow(InputError);
    try {
      parse(raw);
    } catch (e) {
      expect((e as InputError).field).toBe(field);
      expect((e as InputError).file).toBe("s.json");
    }
  });
});

describe("ZkTree snapshot and restore", () => {
  it("a node deleted after a restore leaves its restored parent's children, so the parent can go too", () => {
    const tree = new ZkTree();
    run(tree, [session(), create(1, "/locks/a", { parents: true }), create(1, "/locks/a/n", { ephemeral: true })]);
    const copy = tree.snapshot();
    run(tree, [{ kind: "delete", sessionId: 1, path: "/locks/a/n", version: -1 }]);
    tree.restore(copy);
    expect(tree.getChildren("/locks/a")).toEqual(["n"]);
    const [removed, parentRemoved] = run(tree, [
      { kind: "delete", sessionId: 1, path: "/locks/a/n", version: -1 },
      { kind: "delete", sessionId: 1, path: "/locks/a", version: -1 },
    ]);
    expect(removed).toMatchObject({ ok: true });
    expect(parentRemoved).toMatchObject({ ok: true });
    expect(tree.getChildren("/locks")).toEqual([]);
    // The snapshot is as it was: restored again, the child is back.
    tree.restore(copy);
    expect(tree.getChildren("/locks/a")).toEqual(["n"]);
  });
});
