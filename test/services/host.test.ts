import { describe, expect, it } from "vitest";
import { electionTimeoutsFor } from "../../services/raft-service/host.js";
import { parseRaftServiceOptions } from "../../services/raft-service/options.js";
import { ZkCluster } from "./cluster.js";

/**
 * RaftServiceHost (services/raft-service/host.ts), the part shared by raft-zk and
 * etcd-lease: election timeouts, the expiry tick's period, the answer to a proposal
 * that fails, promote/demote. Through a real cluster on the Raft core.
 */
const opts = (raw: Record<string, unknown>) => parseRaftServiceOptions(raw, "t", "designOptions", [], "zk");

describe("electionTimeoutsFor", () => {
  it("gives the preferred leader a fixed timeout of half the others' minimum, never at or below a heartbeat", () => {
    const o = opts({ preferredLeader: "zk-1", electionTimeoutMsMin: 150, electionTimeoutMsMax: 300 });
    expect(electionTimeoutsFor("zk-1", o)).toEqual({ electionTimeoutMsMin: 75, electionTimeoutMsMax: 75 });
    expect(electionTimeoutsFor("zk-2", o)).toEqual({ electionTimeoutMsMin: 150, electionTimeoutMsMax: 300 });
    const odd = opts({ preferredLeader: "zk-1", electionTimeoutMsMin: 151, electionTimeoutMsMax: 300, raftHeartbeatIntervalMs: 50 });
    expect(electionTimeoutsFor("zk-1", odd)).toEqual({ electionTimeoutMsMin: 75, electionTimeoutMsMax: 75 });
    // Half the minimum would be 50, the heartbeat: one more, or it would call elections on a healthy leader.
    const tight = opts({ preferredLeader: "zk-1", electionTimeoutMsMin: 101, electionTimeoutMsMax: 120, raftHeartbeatIntervalMs: 50 });
    expect(electionTimeoutsFor("zk-1", tight)).toEqual({ electionTimeoutMsMin: 51, electionTimeoutMsMax: 51 });
    expect(electionTimeoutsFor("zk-1", opts({}))).toEqual({ electionTimeoutMsMin: 150, electionTimeoutMsMax: 300 });
  });
});

describe("the expiry tick", () => {
  // sessionTimeoutMs / 20, between 5 and 100 ms: expiry is late by at most one tick.
  it.each([
    [1000, 50],
    [4000, 100],
    [200, 10],
    [60, 5],
  ])("session timeout %i ms: a silent session expires after it, late by at most a tick of %i ms (and a commit)", (timeoutMs, tickMs) => {
    const c = new ZkCluster({ sessionTimeoutMs: timeoutMs, options: timeoutMs < 100 ? { heartbeatIntervalMs: 10 } : {} });
    const leader = c.elect();
    // Past the leader's first tick (its promote restarts every session's timer).
    c.runMs(tickMs + 1);
    const r = c.ask(leader, { kind: "createSession", timeoutMs });
    const sid = (r as { sessionId: number }).sessionId;
    const startMs = c.nowMs;
    const t = c.server(leader).tree;
    expect(c.runUntil(() => !t.sessions.has(sid), timeoutMs + 500)).toBe(true);
    // The decision is taken on a tick (the leader's ticks fall on multiples of tickMs
    // since boot), the first after the timeout; the session's timer started at its
    // apply, a millisecond before the reply.
    const decidedUs = c.events({ f: "session-expiry" })[0]!.timeUs;
    expect(decidedUs % (tickMs * 1000)).toBe(0);
    const lateMs = decidedUs / 1000 - (startMs - 1) - timeoutMs;
    expect(lateMs).toBeGreaterThan(0);
    expect(lateMs).toBeLessThanOrEqual(tickMs);
    // Then one commit: at most a Raft heartbeat and a round trip.
    expect(c.nowMs - decidedUs / 1000).toBeLessThanOrEqual(c.o.raftHeartbeatIntervalMs + 3);
  });
});

describe("RaftServiceHost", () => {
  it("a write on a leader deposed before it commits is answered unknown (it may yet commit), a later one not-leader", () => {
    const c = new ZkCluster();
    const leader = c.elect();
    const sid = (c.ask(leader, { kind: "createSession", timeoutMs: 1000 }) as { sessionId: number }).sessionId;
    for (const p of c.peers)
      if (p !== leader) {
        c.sim.network.cutLink(leader, p);
        c.sim.network.cutLink(p, leader);
      }
    const w = c.send(leader, { kind: "create", sessionId: sid, path: "/w", data: "", ephemeral: false, sequential: false, parents: false }, 5000);
    const ping = c.send(leader, { kind: "ping", sessionId: sid }, 5000);
    // The others elect a leader of a higher term; once healed, the old one hears it and steps down.
    c.runMs(1000);
    expect(w.done).toBe(false);
    c.healAll();
    expect(c.runUntil(() => w.done && ping.done, 3000)).toBe(true);
    expect(w.reply).toMatchObject({ status: "unknown" });
    expect(ping.reply).toMatchObject({ status: "not-leader" });
    expect((ping.reply as { leader?: string }).leader).not.toBe(leader);
    expect(c.ask(leader, { kind: "ping", sessionId: sid })).toMatchObject({ status: "not-leader", leader: c.currentLeader() });
  });

  it("an expiry proposed by a leader that is deposed is timed again by the next leader (the session does expire)", () => {
    const c = new ZkCluster();
    const old = c.elect();
    const sid = (c.ask(old, { kind: "createSession", timeoutMs: 1000 }) as { sessionId: number }).sessionId;
    c.runMs(100);
    // zk-1 decides the expiry, but is cut off before the proposal commits.
    const t1 = c.server(old).tree;
    expect(c.runUntil(() => c.events({ process: old, f: "session-expiry" }).length > 0, 2000)).toBe(true);
    c.isolate(old);
    c.runMs(3000);
    const next = c.currentLeader()!;
    expect(next).not.toBe(old);
    expect(c.server(next).tree.sessions.has(sid)).toBe(false);
    expect(c.events({ process: next, f: "session-expiry" })).toHaveLength(1);
    c.healAll();
    c.runMs(1000);
    expect(t1.sessions.has(sid)).toBe(false);
    // The old leader, back and a follower, forgot its pending expiry: it decides nothing more.
    expect(c.events({ process: old, f: "session-expiry" })).toHaveLength(1);
  });

  it("Raft messages go to the node, other messages to the service", () => {
    const c = new ZkCluster();
    const leader = c.elect();
    // A client request of unknown type is neither Raft's nor the service's: no answer, no harm.
    const ctx = c.sim.context("c1");
    ctx.send(leader, { type: "raft-nonsense" });
    ctx.send(leader, { type: "zk-unknown" });
    c.runMs(100);
    expect(c.currentLeader()).toBe(leader);
  });
});
