import { describe, expect, it } from "vitest";
import { EtcdCluster } from "./cluster.js";
import type { EtcdOp } from "../../designs/etcd-lease/protocol.js";

/**
 * The etcd-lease server (designs/etcd-lease/server.ts) through its client protocol:
 * redirects, leases and their expiry on the leader's lessor (also across a leader
 * change, with Promote's extension), keepalives, transactions, ranges, waitDelete. A
 * 3-server cluster with etcd-1 preferred, 1 ms links, TTL 1 s (expiry tick 50 ms).
 */
/** How late an expiry may land: one expiry tick (50 ms), one Raft heartbeat before the commit (50 ms), a few 1 ms hops. */
const LATE_MS_MAX = 50 + 50 + 5;
const put = (key: string, lease?: number): EtcdOp => ({
  kind: "txn",
  compare: [],
  success: [{ op: "put", key, value: "v", ...(lease ? { lease } : {}) }],
  failure: [],
});

function grant(c: EtcdCluster, leader: string, client = "c1", ttlMs = 1000): number {
  const r = c.ask(leader, { kind: "leaseGrant", ttlMs }, 1000, client);
  expect(r).toMatchObject({ status: "ok", ttlMs });
  return (r as { leaseId: number }).leaseId;
}

describe("etcd-lease server: requests", () => {
  it("a follower answers not-leader naming the leader; the leader grants a lease whose id is its log index", () => {
    const c = new EtcdCluster();
    const leader = c.elect();
    c.runMs(200);
    expect(c.ask("etcd-3", { kind: "leaseGrant", ttlMs: 1000 })).toMatchObject({ status: "not-leader", leader: "etcd-1" });
    const id = grant(c, leader);
    expect(c.server(leader).kv.leases.get(id)).toMatchObject({ id, owner: "c1", ttlMs: 1000 });
    c.runMs(100);
    for (const p of c.peers) expect(c.server(p).kv.leases.has(id), p).toBe(true);
  });

  it("a txn answers with its revision, whether it succeeded and its responses; a put on an unknown lease is an error", () => {
    const c = new EtcdCluster();
    const leader = c.elect();
    const id = grant(c, leader);
    expect(c.ask(leader, put("/a", id))).toMatchObject({ status: "ok", revision: 1, succeeded: true, responses: [{ op: "put" }] });
    const cas: EtcdOp = {
      kind: "txn",
      compare: [{ key: "/a", target: "createRevision", cmp: "=", value: 0 }],
      success: [{ op: "put", key: "/a", value: "v" }],
      failure: [{ op: "range", key: "/a" }],
    };
    const r = c.ask(leader, cas)!;
    expect(r).toMatchObject({ status: "ok", revision: 1, succeeded: false, responses: [{ op: "range", kvs: [{ key: "/a", lease: id, createRevision: 1 }] }] });
    expect("leaseId" in r).toBe(false);
    expect(c.ask(leader, put("/b", 999))).toEqual({ type: "etcd-reply", status: "error", error: "lease-not-found", inReplyTo: expect.any(Number) });
  });

  it("range reads pass a barrier and give the store's revision and the keys", () => {
    const c = new EtcdCluster();
    const leader = c.elect();
    c.ask(leader, put("/p/b"));
    c.ask(leader, put("/p/a"));
    expect(c.ask(leader, { kind: "range", key: "/p/", prefix: true })).toMatchObject({ status: "ok", revision: 2, kvs: [{ key: "/p/a" }, { key: "/p/b" }] });
  });

  it("a keepalive of an unknown lease is told retry; of a revoked one, lease-not-found; a revoke deletes the lease's keys everywhere", () => {
    const c = new EtcdCluster();
    const leader = c.elect();
    expect(c.ask(leader, { kind: "keepAlive", leaseId: 77 })).toMatchObject({ status: "retry" });
    const id = grant(c, leader);
    c.ask(leader, put("/k", id));
    expect(c.ask(leader, { kind: "keepAlive", leaseId: id })).toMatchObject({ status: "ok", ttlMs: 1000, revision: 1 });
    expect(c.ask(leader, { kind: "leaseRevoke", leaseId: id })).toMatchObject({ status: "ok", revision: 2 });
    expect(c.ask(leader, { kind: "keepAlive", leaseId: id })).toMatchObject({ status: "error", error: "lease-not-found" });
    // A client's own revoke is its release, not a lessor expiry.
    expect(c.events({ f: "lease-revoked" })).toEqual([]);
    c.runMs(100);
    for (const p of c.peers) expect(c.server(p).kv.get("/k"), p).toBeUndefined();
  });

  it("waitDelete answers at once if the key is gone, else when it is deleted, on any member", () => {
    const c = new EtcdCluster();
    const leader = c.elect();
    expect(c.ask("etcd-2", { kind: "waitDelete", key: "/none", revision: 0 })).toMatchObject({ status: "ok", revision: 0 });
    c.ask(leader, put("/k"));
    c.ask(leader, put("/j"));
    c.runMs(100);
    const w = c.send("etcd-2", { kind: "waitDelete", key: "/k", revision: 1 }, 3000);
    const other = c.send("etcd-2", { kind: "waitDelete", key: "/j", revision: 1 }, 3000);
    c.runMs(100);
    expect(w.done).toBe(false);
    c.ask(leader, { kind: "txn", compare: [], success: [{ op: "delete", key: "/k" }], failure: [] });
    c.runMs(100);
    expect(w.reply).toMatchObject({ status: "ok", revision: 3 });
    expect(other.done).toBe(false);
  });

  it("a leader cut off from the majority confirms no keepalive and no write", () => {
    const c = new EtcdCluster();
    const leader = c.elect();
    const id = grant(c, leader);
    for (const p of c.peers)
      if (p !== leader) {
        c.sim.network.cutLink(leader, p);
        c.sim.network.cutLink(p, leader);
      }
    expect(c.ask(leader, { kind: "keepAlive", leaseId: id }, 3000)?.status).not.toBe("ok");
    expect(c.ask(leader, put("/w"), 3000)?.status).not.toBe("ok");
    for (const p of c.peers) expect(c.server(p).kv.get("/w"), p).toBeUndefined();
  });
});

describe("etcd-lease server: the lessor on the leader", () => {
  it("a lease kept alive every 300 ms lives; once silent it is revoked after its TTL (not before), with its keys", () => {
    const c = new EtcdCluster();
    const leader = c.elect();
    const id = grant(c, leader);
    c.ask(leader, put("/lock", id));
    c.ask(leader, put("/free"));
    for (let i = 0; i < 8; i++) {
      expect(c.ask(leader, { kind: "keepAlive", leaseId: id }), `keepalive ${i}`).toMatchObject({ status: "ok" });
      c.runMs(300);
    }
    const kv = c.server(leader).kv;
    expect(kv.leases.has(id)).toBe(true);
    const lastMs = c.nowMs;
    c.ask(leader, { kind: "keepAlive", leaseId: id });
    c.runMs(900);
    expect(kv.leases.has(id)).toBe(true);
    expect(c.runUntil(() => !kv.leases.has(id), 1000)).toBe(true);
    const goneMs = c.nowMs - lastMs;
    expect(goneMs).toBeGreaterThan(1000);
    expect(goneMs).toBeLessThan(1000 + LATE_MS_MAX);
    expect(c.events({ f: "lease-expiry" })[0]!.value).toMatchObject({ leaseId: id, owner: "c1", decidedBy: leader, ttlMs: 1000 });
    expect(c.events({ f: "lease-revoked" })[0]!.value).toEqual({ leaseId: id, revision: 3, keysDeleted: ["/lock"] });
    expect(c.ask(leader, { kind: "keepAlive", leaseId: id })).toMatchObject({ status: "error", error: "lease-not-found" });
    c.runMs(100);
    for (const p of c.peers) {
      expect(c.server(p).kv.get("/lock"), p).toBeUndefined();
      expect(c.server(p).kv.get("/free"), p).toBeDefined();
    }
  });

  it("a lease with a longer TTL is timed by its own TTL", () => {
    const c = new EtcdCluster();
    const leader = c.elect();
    const id = grant(c, leader, "c1", 2000);
    const grantedMs = c.nowMs;
    const kv = c.server(leader).kv;
    c.runMs(1500);
    expect(kv.leases.has(id)).toBe(true);
    expect(c.runUntil(() => !kv.leases.has(id), 1000)).toBe(true);
    expect(c.nowMs - grantedMs).toBeGreaterThan(2000);
  });

  it("a new leader extends every lease to its TTL plus one election timeout from its election (Promote)", () => {
    const c = new EtcdCluster();
    const old = c.elect();
    const id = grant(c, old);
    c.runMs(200);
    c.runMs(600);
    c.sim.crash(old);
    expect(c.runUntil(() => c.currentLeader() !== undefined, 2000)).toBe(true);
    const next = c.currentLeader()!;
    c.runMs(60);
    const promotedMs = c.nowMs;
    expect(c.events({ process: next, f: "leader" })[0]!.value).toMatchObject({ leases: 1, note: "extends every lease by its TTL + 300 ms" });
    const kv = c.server(next).kv;
    // TTL 1000 + electionTimeoutMsMax 300 from the promote.
    c.runMs(1200);
    expect(kv.leases.has(id), "revoked before TTL + election timeout under the new leader").toBe(true);
    expect(c.runUntil(() => !kv.leases.has(id), 1000)).toBe(true);
    expect(c.nowMs - promotedMs).toBeGreaterThan(1300 - 60);
    expect(c.nowMs - promotedMs).toBeLessThan(1300 + LATE_MS_MAX);
    expect(c.events({ f: "lease-expiry" })[0]!.value).toMatchObject({ decidedBy: next });
  });

  it("keepalives to the new leader keep the lease through the change; followers never expire a lease", () => {
    const c = new EtcdCluster();
    const old = c.elect();
    const id = grant(c, old);
    c.runMs(200);
    c.sim.crash(old);
    expect(c.runUntil(() => c.currentLeader() !== undefined, 2000)).toBe(true);
    const next = c.currentLeader()!;
    for (let i = 0; i < 10; i++) {
      expect(c.ask(next, { kind: "keepAlive", leaseId: id }), `keepalive ${i}`).toMatchObject({ status: "ok" });
      c.runMs(300);
    }
    expect(c.server(next).kv.leases.has(id)).toBe(true);
    expect(c.events({ f: "lease-expiry" })).toEqual([]);
  });
});

describe("etcd-lease server: what it records and edge cases", () => {
  it("records the promote, the lessor's decision and the revocation in full, once each", () => {
    const c = new EtcdCluster();
    const leader = c.elect();
    c.runMs(60);
    const id = grant(c, leader);
    const grantedUs = c.sim.nowUs;
    c.ask(leader, put("/k", id));
    const kv = c.server(leader).kv;
    expect(c.runUntil(() => !kv.leases.has(id), 2000)).toBe(true);
    c.runMs(100);
    expect(c.events({ f: "leader" }).map((e) => ({ process: e.process, type: e.type, value: e.value }))).toEqual([
      { process: leader, type: "info", value: { term: 1, leases: 0, note: "extends every lease by its TTL + 300 ms" } },
    ]);
    const decided = c.events({ f: "lease-expiry" });
    expect(decided).toHaveLength(1);
    expect(decided[0]).toMatchObject({ process: leader, type: "info" });
    const v = decided[0]!.value as { overdueMs: number };
    expect(v).toEqual({ leaseId: id, owner: "c1", decidedBy: leader, clock: "the leader's monotonic clock", ttlMs: 1000, overdueMs: v.overdueMs });
    expect(v.overdueMs).toBeGreaterThan(0);
    expect(v.overdueMs).toBeLessThanOrEqual(50);
    // Decided on the first tick after the TTL from the grant's apply (a millisecond before its reply).
    expect(decided[0]!.timeUs - (grantedUs - 1000)).toBeLessThanOrEqual((1000 + 50) * 1000);
    const revoked = c.events({ f: "lease-revoked" });
    expect(revoked.map((e) => [e.process, e.type])).toEqual([[leader, "info"]]);
  });

  it("a lease grant's answer carries its id and TTL and nothing of a transaction", () => {
    const c = new EtcdCluster();
    const leader = c.elect();
    const r = c.ask(leader, { kind: "leaseGrant", ttlMs: 700 });
    // Strict: no succeeded/responses keys, even undefined ones.
    expect(r).toStrictEqual({ type: "etcd-reply", status: "ok", revision: 0, leaseId: expect.any(Number), ttlMs: 700, inReplyTo: expect.any(Number) });
  });

  it("a follower answers not-leader even for a lease it does not know (not retry)", () => {
    const c = new EtcdCluster();
    c.elect();
    c.runMs(200);
    expect(c.ask("etcd-2", { kind: "keepAlive", leaseId: 4242 })).toMatchObject({ status: "not-leader", leader: "etcd-1" });
  });

  it("waitDelete is not woken by a put to its key, only by the delete", () => {
    const c = new EtcdCluster();
    const leader = c.elect();
    c.ask(leader, put("/k"));
    const w = c.send(leader, { kind: "waitDelete", key: "/k", revision: 1 }, 3000);
    c.ask(leader, put("/k"));
    c.runMs(50);
    expect(w.done).toBe(false);
    c.ask(leader, { kind: "txn", compare: [], success: [{ op: "delete", key: "/k" }], failure: [] });
    c.runMs(10);
    expect(w.reply).toMatchObject({ status: "ok", revision: 3 });
  });

  it("ignores messages of other types, and records each replica's KV digests at the run's end", () => {
    const c = new EtcdCluster();
    const leader = c.elect();
    c.sim.context("c1").send(leader, { type: "etcd-unknown" });
    c.sim.context("c1").send(leader, { type: "zk-request", op: { kind: "ping", sessionId: 1 } });
    c.ask(leader, put("/a"));
    c.ask(leader, put("/b"));
    c.runMs(200);
    c.sim.endRun();
    const rs = c.events({ f: "replica-state" });
    expect(rs.map((e) => e.process).sort()).toEqual(c.peers);
    const states = (rs[0]!.value as { states: Array<[number, string]> }).states;
    expect(states.map(([i]) => i)).toEqual([1, 2]);
    expect(states[0]![1]).not.toBe(states[1]![1]);
  });
});
