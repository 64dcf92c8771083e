import { describe, expect, it } from "vitest";
import { ZkCluster } from "./cluster.js";
import type { ZkOp } from "../../designs/raft-zk/protocol.js";

/**
 * The Raft-ZK server (designs/raft-zk/server.ts) through its client protocol: redirects,
 * sessions and their expiry on the leader's clock (also across a leader change), the
 * reads and writes, watches, the lock-delay. A 3-server cluster with zk-1 preferred,
 * 1 ms links, session timeout 1 s (expiry tick 50 ms).
 */
/** How late an expiry may land: one expiry tick (50 ms), one Raft heartbeat before the commit (50 ms), a few 1 ms hops. */
const LATE_MS_MAX = 50 + 50 + 5;
const create = (sessionId: number, path: string, o: Partial<{ ephemeral: boolean; sequential: boolean }> = {}): ZkOp => ({
  kind: "create",
  sessionId,
  path,
  data: "d",
  ephemeral: o.ephemeral ?? false,
  sequential: o.sequential ?? false,
  parents: true,
});

function openSession(c: ZkCluster, leader: string, client = "c1"): number {
  const r = c.ask(leader, { kind: "createSession", timeoutMs: c.o.sessionTimeoutMs }, 1000, client);
  expect(r).toMatchObject({ status: "ok" });
  return (r as { sessionId: number }).sessionId;
}

/** An elected cluster with two open sessions (c1's and c2's), where most tests start. */
function twoSessions(): { c: ZkCluster; leader: string; s1: number; s2: number } {
  const c = new ZkCluster();
  const leader = c.elect();
  return { c, leader, s1: openSession(c, leader, "c1"), s2: openSession(c, leader, "c2") };
}

describe("Raft-ZK server: requests", () => {
  it("a follower answers not-leader naming the leader; the leader opens a session whose id is its zxid", () => {
    const c = new ZkCluster();
    const leader = c.elect();
    expect(leader).toBe("zk-1");
    c.runMs(200); // followers hear the leader
    expect(c.ask("zk-2", { kind: "createSession", timeoutMs: 1000 })).toEqual({ type: "zk-reply", status: "not-leader", leader: "zk-1", inReplyTo: 1 });
    const r = c.ask(leader, { kind: "createSession", timeoutMs: 1000 });
    expect(r).toMatchObject({ status: "ok", sessionId: (r as { zxid: number }).zxid });
    expect(c.server("zk-1").tree.sessions.get((r as { sessionId: number }).sessionId)).toMatchObject({ owner: "c1", timeoutMs: 1000 });
  });

  it("a session the leader has not applied is told retry; one that is dead, session-expired", () => {
    const c = new ZkCluster();
    const leader = c.elect();
    expect(c.ask(leader, { kind: "ping", sessionId: 99 })).toMatchObject({ status: "retry" });
    const sid = openSession(c, leader);
    expect(c.ask(leader, { kind: "closeSession", sessionId: sid })).toMatchObject({ status: "ok" });
    expect(c.ask(leader, { kind: "ping", sessionId: sid })).toMatchObject({ status: "error", error: "session-expired" });
    expect(c.ask(leader, create(sid, "/x"))).toMatchObject({ status: "error", error: "session-expired" });
  });

  it("writes answer with their zxid, path and stat; a failed write with the tree's error", () => {
    const c = new ZkCluster();
    const leader = c.elect();
    const sid = openSession(c, leader);
    const a = c.ask(leader, create(sid, "/l/n-", { ephemeral: true, sequential: true }))!;
    expect(a).toMatchObject({ status: "ok", path: "/l/n-0000000000" });
    const zxid = (a as { zxid: number }).zxid;
    expect(a).toMatchObject({ stat: { czxid: zxid, mzxid: zxid, version: 0, ephemeralOwner: sid } });
    expect(c.ask(leader, create(sid, "/l/n-0000000000"))).toMatchObject({ status: "error", error: "node-exists" });
    const s = c.ask(leader, { kind: "set", sessionId: sid, path: "/l/n-0000000000", data: "e", version: 0 })!;
    expect(s).toMatchObject({ status: "ok", stat: { version: 1 } });
    expect(c.ask(leader, { kind: "set", sessionId: sid, path: "/l/n-0000000000", data: "f", version: 0 })).toMatchObject({
      status: "error",
      error: "bad-version",
    });
    expect(c.ask(leader, { kind: "delete", sessionId: sid, path: "/l/n-0000000000", version: -1 })).toMatchObject({ status: "ok" });
    // The write is on every replica, not only the leader.
    c.runMs(200);
    for (const p of c.peers) expect(c.server(p).tree.exists("/l/n-0000000000"), p).toBeUndefined();
    for (const p of c.peers) expect(c.server(p).tree.exists("/l"), p).toBeDefined();
  });

  it("reads: get gives data and stat, exists a stat or none, getChildren sorted names; no-node for a missing node", () => {
    const c = new ZkCluster();
    const leader = c.elect();
    const sid = openSession(c, leader);
    c.ask(leader, create(sid, "/p/b"));
    c.ask(leader, create(sid, "/p/a"));
    expect(c.ask(leader, { kind: "get", sessionId: sid, path: "/p/a", watch: false })).toMatchObject({ status: "ok", data: "d", stat: { version: 0 } });
    expect(c.ask(leader, { kind: "get", sessionId: sid, path: "/p/z", watch: false })).toMatchObject({ status: "error", error: "no-node" });
    expect(c.ask(leader, { kind: "exists", sessionId: sid, path: "/p/a", watch: false })).toMatchObject({ status: "ok", stat: { numChildren: 0 } });
    const none = c.ask(leader, { kind: "exists", sessionId: sid, path: "/p/z", watch: false })!;
    expect(none).toMatchObject({ status: "ok" });
    expect("stat" in none).toBe(false);
    expect(c.ask(leader, { kind: "getChildren", sessionId: sid, path: "/p", watch: false })).toMatchObject({ status: "ok", children: ["a", "b"] });
    expect(c.ask(leader, { kind: "getChildren", sessionId: sid, path: "/q", watch: false })).toMatchObject({ status: "error", error: "no-node" });
  });

  it("a leader cut off from the majority confirms no ping and no write (its barrier and proposals fail), and the write is applied nowhere", () => {
    const c = new ZkCluster();
    const leader = c.elect();
    const sid = openSession(c, leader);
    // The client stays connected to the old leader; the servers cannot hear it.
    for (const p of c.peers)
      if (p !== leader) {
        c.sim.network.cutLink(leader, p);
        c.sim.network.cutLink(p, leader);
      }
    const ping = c.ask(leader, { kind: "ping", sessionId: sid }, 3000);
    const write = c.ask(leader, create(sid, "/w"), 3000);
    // Never "ok": a deposed leader in a minority must not confirm a session or a write.
    expect(ping?.status).not.toBe("ok");
    expect(write?.status).not.toBe("ok");
    // The write did not reach the others' trees: nothing it "answered" was applied.
    for (const p of c.peers) expect(c.server(p).tree.exists("/w"), p).toBeUndefined();
  });
});

describe("Raft-ZK server: session expiry on the leader's clock", () => {
  it("a session pinged every 300 ms lives; once silent it expires after its timeout (not before), deleting its ephemerals everywhere", () => {
    const c = new ZkCluster();
    const leader = c.elect();
    const sid = openSession(c, leader);
    c.ask(leader, create(sid, "/l/n-", { ephemeral: true, sequential: true }));
    c.ask(leader, create(sid, "/keep"));
    for (let i = 0; i < 8; i++) {
      expect(c.ask(leader, { kind: "ping", sessionId: sid }), `ping ${i}`).toMatchObject({ status: "ok" });
      c.runMs(300);
    }
    expect(c.server(leader).tree.sessions.has(sid)).toBe(true);
    const lastPingMs = c.nowMs;
    c.ask(leader, { kind: "ping", sessionId: sid });
    c.runMs(900); // within the 1 s timeout
    expect(c.server(leader).tree.sessions.has(sid)).toBe(true);
    expect(c.runUntil(() => !c.server(leader).tree.sessions.has(sid), 1000)).toBe(true);
    const goneMs = c.nowMs - lastPingMs;
    // Late by at most a tick (50 ms) and a commit round trip; never early.
    expect(goneMs).toBeGreaterThan(1000);
    expect(goneMs).toBeLessThan(1000 + LATE_MS_MAX);
    const decided = c.events({ f: "session-expiry" });
    expect(decided).toHaveLength(1);
    expect(decided[0]!.value).toMatchObject({ sessionId: sid, owner: "c1", decidedBy: leader, timeoutMs: 1000 });
    expect(c.events({ f: "session-expired" })[0]!.value).toEqual({ sessionId: sid, zxid: expect.any(Number), ephemeralsDeleted: ["/l/n-0000000000"] });
    c.runMs(100);
    for (const p of c.peers) {
      expect(c.server(p).tree.exists("/l/n-0000000000"), p).toBeUndefined();
      expect(c.server(p).tree.exists("/keep"), p).toBeDefined();
      expect(c.server(p).tree.deadSessions.has(sid), p).toBe(true);
    }
    expect(c.ask(leader, { kind: "ping", sessionId: sid })).toMatchObject({ status: "error", error: "session-expired" });
  });

  it("any request is a sign of life: a session that only reads and writes, never pings, lives", () => {
    const c = new ZkCluster();
    const leader = c.elect();
    const sid = openSession(c, leader);
    for (let i = 0; i < 6; i++) {
      c.runMs(400);
      expect(c.ask(leader, i % 2 ? create(sid, `/n${i}`) : { kind: "exists", sessionId: sid, path: "/", watch: false }), `request ${i}`).toMatchObject({
        status: "ok",
      });
    }
    expect(c.server(leader).tree.sessions.has(sid)).toBe(true);
  });

  it("followers never expire a session (no session-expiry decided by them), even long after its timeout", () => {
    const c = new ZkCluster();
    const leader = c.elect();
    openSession(c, leader);
    c.runMs(3000);
    expect(c.events({ f: "session-expiry" }).map((e) => (e.value as { decidedBy: string }).decidedBy)).toEqual([leader]);
  });

  it("a new leader restarts every session's timer from its election: a session last heard 800 ms before the leader crashed lives a full timeout past the new election", () => {
    const c = new ZkCluster();
    const old = c.elect();
    const sid = openSession(c, old);
    c.ask(old, { kind: "ping", sessionId: sid });
    c.runMs(200); // the session is on every replica
    c.runMs(600);
    c.sim.crash(old);
    expect(c.runUntil(() => c.currentLeader() !== undefined, 2000)).toBe(true);
    const next = c.currentLeader()!;
    expect(next).not.toBe(old);
    // The next tick of the new leader is its promote: from then on, a full timeout.
    c.runMs(60);
    const promotedMs = c.nowMs;
    expect(c.events({ process: next, f: "leader" })[0]!.value).toMatchObject({ sessions: 1 });
    c.runMs(900);
    expect(c.server(next).tree.sessions.has(sid), "expired before a full timeout under the new leader").toBe(true);
    expect(c.runUntil(() => !c.server(next).tree.sessions.has(sid), 1000)).toBe(true);
    expect(c.nowMs - promotedMs).toBeGreaterThan(1000 - 60);
    expect(c.events({ f: "session-expiry" })[0]!.value).toMatchObject({ decidedBy: next });
  });

  it("a ping to the new leader keeps the session through the change", () => {
    const c = new ZkCluster();
    const old = c.elect();
    const sid = openSession(c, old);
    c.runMs(200);
    c.sim.crash(old);
    expect(c.runUntil(() => c.currentLeader() !== undefined, 2000)).toBe(true);
    const next = c.currentLeader()!;
    for (let i = 0; i < 10; i++) {
      expect(c.ask(next, { kind: "ping", sessionId: sid }), `ping ${i}`).toMatchObject({ status: "ok" });
      c.runMs(300);
    }
    expect(c.server(next).tree.sessions.has(sid)).toBe(true);
    expect(c.events({ f: "session-expiry" })).toEqual([]);
  });
});

describe("Raft-ZK server: watches", () => {
  it("a data watch set by get fires once on a change and once on a delete; awaitWatch waits for it", () => {
    const { c, leader, s1, s2 } = twoSessions();
    c.ask(leader, create(s1, "/n"));
    c.ask(leader, { kind: "get", sessionId: s2, path: "/n", watch: true }, 1000, "c2");
    const waiting = c.send(leader, { kind: "awaitWatch", sessionId: s2, path: "/n" }, 3000, "c2");
    c.runMs(50);
    expect(waiting.done).toBe(false);
    c.ask(leader, { kind: "set", sessionId: s1, path: "/n", data: "x", version: -1 });
    c.runMs(10);
    expect(waiting.reply).toMatchObject({ status: "ok", event: "changed" });
    expect(c.events({ f: "watch-fired" })[0]!.value).toEqual({ path: "/n", client: "c2", event: "changed" });
    // One-shot: a second change has no watch to fire.
    c.ask(leader, { kind: "set", sessionId: s1, path: "/n", data: "y", version: -1 });
    expect(c.ask(leader, { kind: "awaitWatch", sessionId: s2, path: "/n" }, 1000, "c2")).toMatchObject({ status: "ok", event: "none" });
    // A fresh watch, fired before the client asks, is kept until it does.
    c.ask(leader, { kind: "exists", sessionId: s2, path: "/n", watch: true }, 1000, "c2");
    c.ask(leader, { kind: "delete", sessionId: s1, path: "/n", version: -1 });
    expect(c.ask(leader, { kind: "awaitWatch", sessionId: s2, path: "/n" }, 1000, "c2")).toMatchObject({ status: "ok", event: "deleted" });
    expect(c.ask(leader, { kind: "awaitWatch", sessionId: s2, path: "/n" }, 1000, "c2")).toMatchObject({ status: "ok", event: "none" });
  });

  it("exists watches a creation; getChildren watches children; a child's data change does not fire the parent's", () => {
    const { c, leader, s1, s2 } = twoSessions();
    c.ask(leader, create(s1, "/p/a"));
    c.ask(leader, { kind: "exists", sessionId: s2, path: "/p/new", watch: true }, 1000, "c2");
    c.ask(leader, { kind: "getChildren", sessionId: s2, path: "/p", watch: true }, 1000, "c2");
    c.ask(leader, { kind: "set", sessionId: s1, path: "/p/a", data: "x", version: -1 });
    expect(c.ask(leader, { kind: "awaitWatch", sessionId: s2, path: "/p" }, 50, "c2")).toBeUndefined();
    c.ask(leader, create(s1, "/p/new"));
    expect(c.ask(leader, { kind: "awaitWatch", sessionId: s2, path: "/p/new" }, 1000, "c2")).toMatchObject({ status: "ok", event: "created" });
    c.runMs(50);
    expect(c.events({ f: "watch-fired" }).map((e) => e.value)).toEqual([{ path: "/p", client: "c2", event: "children" }]);
  });

  it("get on a missing node sets no watch (exists does): its later creation fires nothing", () => {
    const { c, leader, s1, s2 } = twoSessions();
    expect(c.ask(leader, { kind: "get", sessionId: s2, path: "/gone", watch: true }, 1000, "c2")).toMatchObject({ status: "error", error: "no-node" });
    c.ask(leader, create(s1, "/gone"));
    c.runMs(50);
    expect(c.events({ f: "watch-fired" })).toEqual([]);
    expect(c.ask(leader, { kind: "awaitWatch", sessionId: s2, path: "/gone" }, 1000, "c2")).toMatchObject({ status: "ok", event: "none" });
  });

  it("a watch is dropped with its session: its awaitWatch is told none", () => {
    const { c, leader, s1, s2 } = twoSessions();
    c.ask(leader, create(s1, "/n"));
    c.ask(leader, { kind: "get", sessionId: s2, path: "/n", watch: true }, 1000, "c2");
    c.ask(leader, { kind: "closeSession", sessionId: s2 }, 1000, "c2");
    c.ask(leader, { kind: "set", sessionId: s1, path: "/n", data: "x", version: -1 });
    expect(c.events({ f: "watch-fired" })).toEqual([]);
    expect(c.ask(leader, { kind: "awaitWatch", sessionId: s2, path: "/n" }, 1000, "c2")).toMatchObject({ status: "ok", event: "none" });
  });
});

describe("Raft-ZK server: lock-delay", () => {
  it("an expired session's ephemerals stay lockDelayMs, then go; a closed session's go at once", () => {
    const c = new ZkCluster({ lockDelayMs: 600 });
    const leader = c.elect();
    const s1 = openSession(c, leader, "c1");
    const s2 = openSession(c, leader, "c2");
    c.ask(leader, create(s1, "/l/a", { ephemeral: true }));
    c.ask(leader, create(s2, "/l/b", { ephemeral: true }), 1000, "c2");
    c.ask(leader, { kind: "closeSession", sessionId: s2 }, 1000, "c2");
    expect(c.server(leader).tree.exists("/l/b")).toBeUndefined();
    const t = c.server(leader).tree;
    expect(c.runUntil(() => !t.sessions.has(s1), 2000)).toBe(true);
    const expiredMs = c.nowMs;
    expect(t.exists("/l/a"), "lingers after the expiry").toBeDefined();
    c.runMs(500);
    expect(t.exists("/l/a"), "still lingering 500 ms after").toBeDefined();
    expect(c.runUntil(() => t.exists("/l/a") === undefined, 1000)).toBe(true);
    expect(c.nowMs - expiredMs).toBeGreaterThanOrEqual(600);
    expect(c.nowMs - expiredMs).toBeLessThan(600 + LATE_MS_MAX);
    expect(t.lingering.size).toBe(0);
  });

  it("a new leader counts the lock-delay again from its election, never shorter", () => {
    const c = new ZkCluster({ lockDelayMs: 800 });
    const old = c.elect();
    const s1 = openSession(c, old);
    c.ask(old, create(s1, "/l/a", { ephemeral: true }));
    expect(c.runUntil(() => !c.server(old).tree.sessions.has(s1), 2000)).toBe(true);
    c.runMs(400);
    c.sim.crash(old);
    expect(c.runUntil(() => c.currentLeader() !== undefined, 2000)).toBe(true);
    const next = c.currentLeader()!;
    c.runMs(60);
    const promotedMs = c.nowMs;
    const t = c.server(next).tree;
    expect(t.exists("/l/a")).toBeDefined();
    expect(c.runUntil(() => t.exists("/l/a") === undefined, 2000)).toBe(true);
    expect(c.nowMs - promotedMs).toBeGreaterThanOrEqual(800 - 60);
  });
});

describe("Raft-ZK server: bug followerSessionExpiry", () => {
  it("off: a follower's clock jump expires nothing; on: the follower asks and the leader expires a live, pinged session", () => {
    for (const on of [false, true]) {
      const c = new ZkCluster({ bugs: { followerSessionExpiry: on } });
      const leader = c.elect();
      const sid = openSession(c, leader);
      c.runMs(200);
      // zk-3's wall clock jumps 5 s ahead: by it, every session has been silent too long.
      c.sim.process("zk-3").wall.jump(c.sim.nowUs, 5_000_000);
      for (let i = 0; i < 5; i++) {
        c.ask(leader, { kind: "ping", sessionId: sid });
        c.runMs(200);
      }
      expect(c.server(leader).tree.sessions.has(sid), `bug ${on}`).toBe(!on);
      if (on) {
        expect(c.events({ f: "session-expiry-asked" })[0]).toMatchObject({ process: "zk-3", value: { sessionId: sid, leader } });
        expect(c.events({ f: "session-expiry-asked" })[0]).toMatchObject({ type: "info" });
        const silent = (c.events({ f: "session-expiry-asked" })[0]!.value as { silentMsByMyWallClock: number }).silentMsByMyWallClock;
        expect(silent).toBeGreaterThan(5000);
        expect(silent).toBeLessThan(5000 + 1000);
        expect(c.events({ f: "session-expiry" })[0]).toMatchObject({
          type: "info",
          value: { sessionId: sid, decidedBy: "zk-3", clock: "zk-3's wall clock (the follower-expiry bug)" },
        });
      } else expect(c.events({ f: "session-expiry-asked" })).toEqual([]);
    }
  });
});

describe("Raft-ZK server: what it records and edge cases", () => {
  it("records the leader's promote, the expiry decision and the applied expiry in full, the last only on the leader", () => {
    const c = new ZkCluster();
    const leader = c.elect();
    c.runMs(60);
    const sid = openSession(c, leader);
    c.ask(leader, { kind: "closeSession", sessionId: openSession(c, leader, "c2") }, 1000, "c2");
    expect(c.runUntil(() => !c.server(leader).tree.sessions.has(sid), 2000)).toBe(true);
    c.runMs(100);
    expect(c.events({ f: "leader" }).map((e) => ({ process: e.process, type: e.type, value: e.value }))).toEqual([
      { process: leader, type: "info", value: { term: 1, sessions: 0, note: "restarts every session's timer" } },
    ]);
    const decided = c.events({ f: "session-expiry" });
    expect(decided).toHaveLength(1);
    expect(decided[0]).toMatchObject({ process: leader, type: "info" });
    const v = decided[0]!.value as { silentMs: number };
    expect(v).toEqual({ sessionId: sid, owner: "c1", decidedBy: leader, clock: "the leader's monotonic clock", silentMs: v.silentMs, timeoutMs: 1000 });
    expect(v.silentMs).toBeGreaterThan(1000);
    expect(v.silentMs).toBeLessThanOrEqual(1000 + 50 + 1);
    // The close is no expiry; the expiry is recorded once, by the leader.
    const applied = c.events({ f: "session-expired" });
    expect(applied.map((e) => [e.process, e.type, (e.value as { sessionId: number }).sessionId])).toEqual([[leader, "info", sid]]);
  });

  it("a follower answers not-leader even for a session it does not know (not retry)", () => {
    const c = new ZkCluster();
    c.elect();
    c.runMs(200);
    expect(c.ask("zk-2", { kind: "ping", sessionId: 12345 })).toMatchObject({ status: "not-leader", leader: "zk-1" });
    expect(c.ask("zk-3", { kind: "get", sessionId: 12345, path: "/", watch: false })).toMatchObject({ status: "not-leader", leader: "zk-1" });
  });

  it("each replica's state machine digests are recorded at the run's end, and they change as the tree does", () => {
    const c = new ZkCluster();
    const leader = c.elect();
    const sid = openSession(c, leader);
    c.ask(leader, create(sid, "/a"));
    c.runMs(200);
    c.sim.endRun();
    const rs = c.events({ f: "replica-state" });
    expect(rs.map((e) => e.process).sort()).toEqual(c.peers);
    const states = (rs[0]!.value as { states: Array<[number, string]> }).states;
    expect(states.map(([i]) => i)).toEqual([1, 2]);
    expect(states[0]![1]).not.toBe(states[1]![1]);
    for (const e of rs) expect((e.value as { states: unknown }).states).toEqual(states);
  });

  it("watches: a get without watch sets none; the same watch set twice fires once; another client's watch is not ours", () => {
    const { c, leader, s1, s2 } = twoSessions();
    c.ask(leader, create(s1, "/n"));
    c.ask(leader, { kind: "get", sessionId: s2, path: "/n", watch: false }, 1000, "c2");
    c.ask(leader, { kind: "set", sessionId: s1, path: "/n", data: "x", version: -1 });
    expect(c.ask(leader, { kind: "awaitWatch", sessionId: s2, path: "/n" }, 1000, "c2")).toMatchObject({ event: "none" });
    c.ask(leader, { kind: "get", sessionId: s2, path: "/n", watch: true }, 1000, "c2");
    c.ask(leader, { kind: "get", sessionId: s2, path: "/n", watch: true }, 1000, "c2");
    c.ask(leader, { kind: "set", sessionId: s1, path: "/n", data: "y", version: -1 });
    expect(c.ask(leader, { kind: "awaitWatch", sessionId: s1, path: "/n" }, 1000, "c1")).toMatchObject({ event: "none" });
    expect(c.ask(leader, { kind: "awaitWatch", sessionId: s2, path: "/n" }, 1000, "c2")).toMatchObject({ event: "changed" });
    expect(c.ask(leader, { kind: "awaitWatch", sessionId: s2, path: "/n" }, 1000, "c2")).toMatchObject({ event: "none" });
    expect(c.events({ f: "watch-fired" })).toEqual([]);
  });

  it("a data watch is not fired by a child event, and a fired, undelivered watch keeps its first event", () => {
    const { c, leader, s1, s2 } = twoSessions();
    c.ask(leader, create(s1, "/p"));
    c.ask(leader, { kind: "get", sessionId: s2, path: "/p", watch: true }, 1000, "c2");
    c.ask(leader, create(s1, "/p/child"));
    const waiting = c.send(leader, { kind: "awaitWatch", sessionId: s2, path: "/p" }, 3000, "c2");
    c.runMs(50);
    expect(waiting.done, "a child's creation fired the parent's data watch").toBe(false);
    c.ask(leader, { kind: "set", sessionId: s1, path: "/p", data: "x", version: -1 });
    c.runMs(10);
    expect(waiting.reply).toMatchObject({ status: "ok", event: "changed" });
    expect(c.events({ f: "watch-fired" })[0]).toMatchObject({ process: leader, type: "info" });
    // Fired before it is awaited, twice: the first event is the one delivered.
    c.ask(leader, { kind: "get", sessionId: s2, path: "/p/child", watch: true }, 1000, "c2");
    c.ask(leader, { kind: "set", sessionId: s1, path: "/p/child", data: "x", version: -1 });
    c.ask(leader, { kind: "delete", sessionId: s1, path: "/p/child", version: -1 });
    expect(c.ask(leader, { kind: "awaitWatch", sessionId: s2, path: "/p/child" }, 1000, "c2")).toMatchObject({ event: "changed" });
  });

  it("a waiting watch of a session that closes is dropped silently: its awaitWatch is never answered", () => {
    const { c, leader, s1, s2 } = twoSessions();
    c.ask(leader, create(s1, "/n"));
    c.ask(leader, { kind: "get", sessionId: s2, path: "/n", watch: true }, 1000, "c2");
    const waiting = c.send(leader, { kind: "awaitWatch", sessionId: s2, path: "/n" }, 1000, "c2");
    c.ask(leader, { kind: "closeSession", sessionId: s2 }, 1000, "c2");
    c.ask(leader, { kind: "set", sessionId: s1, path: "/n", data: "x", version: -1 });
    c.runMs(1100);
    expect(waiting.done).toBe(true);
    expect(waiting.reply).toBeUndefined();
  });

  it("with the bug off, expiry requests and touch relays from anyone are ignored; with it on but no clock step, a pinged session lives", () => {
    for (const on of [false, true]) {
      const c = new ZkCluster({ bugs: { followerSessionExpiry: on } });
      const leader = c.elect();
      const sid = openSession(c, leader);
      if (!on) {
        c.sim.context("zk-2").send(leader, { type: "zk-expire-request", sessionId: sid });
        c.sim.context("zk-2").send("zk-3", { type: "zk-touch", sessions: [sid] });
      } else {
        // A request for an unknown session, and one sent to a follower, change nothing.
        c.sim.context("zk-2").send(leader, { type: "zk-expire-request", sessionId: 999 });
        c.sim.context("zk-3").send("zk-2", { type: "zk-expire-request", sessionId: sid });
      }
      for (let i = 0; i < 10; i++) {
        c.ask(leader, { kind: "ping", sessionId: sid });
        c.runMs(300);
      }
      expect(c.server(leader).tree.sessions.has(sid), `bug ${on}`).toBe(true);
      expect(c.events({ f: "session-expiry-asked" }), `bug ${on}`).toEqual([]);
      expect(c.events({ f: "session-expiry" }), `bug ${on}`).toEqual([]);
    }
  });
});
