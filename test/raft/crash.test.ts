import { describe, expect, it } from "vitest";
import type { AppendRequest, AppendResponse, Entry, RaftEffect, VoteResponse } from "../../services/raft/core/types.js";
import { CoreNet, CoreNetError, CrashPoint, termsOf, type Cmd } from "./core-net.js";

/**
 * Crashes at every point, through the core API (test/raft/core-net.ts): each persisted
 * field (term, vote, log, truncation) under a crash of a follower, of a candidate right
 * after its self-vote, and of a leader, each followed by a stale leader or candidate
 * that the restarted node must turn away; and a crash between any two effects of any
 * step of a scripted run, which must leave the cluster safe (persist-before-send is
 * checked on every send by CoreNet).
 */

type Role = "follower" | "candidate" | "leader";
const ROLES: Role[] = ["follower", "candidate", "leader"];

const sends = (fx: RaftEffect<Cmd>[]) => fx.flatMap((e) => (e.kind === "send" ? [{ to: e.to, msg: e.msg }] : []));

/** The single answer a node sent to one request. */
function answer<T>(fx: RaftEffect<Cmd>[], to: string): T {
  const s = sends(fx).filter((x) => x.to === to);
  expect(s, `answers to ${to}`).toHaveLength(1);
  return s[0]!.msg as T;
}

function voteReq(net: CoreNet, x: string, from: string, term: number, lastLogIndex: number, lastLogTerm: number): VoteResponse {
  return answer<VoteResponse>(net.input(x, { type: "message", from, msg: { type: "raft-vote", term, lastLogIndex, lastLogTerm } }), from);
}

function appendReq(net: CoreNet, x: string, from: string, m: Omit<AppendRequest<Cmd>, "type" | "seq">): AppendResponse {
  return answer<AppendResponse>(net.input(x, { type: "message", from, msg: { type: "raft-append", seq: 1, ...m } }), from);
}

interface AtRole {
  net: CoreNet;
  /** The node that crashes. */
  x: string;
  /** Its term, vote and log at the crash (what it must come back with). */
  term: number;
  votedFor: string | null;
  log: Entry<Cmd>[];
  /** A leader of an older term, cut off until now (n1, term 1). */
  staleLeader: string;
  staleTerm: number;
}

/** n1 is elected and replicates "a" and "b" to every server; a heartbeat then tells them the commit. */
function commitAB(net: CoreNet): void {
  net.elect("n1");
  net.propose("n1", "a");
  net.propose("n1", "b");
  net.deliverAll();
  net.heartbeat("n1");
  net.deliverAll();
}

/**
 * n1 leads term 1 and replicates a, b; then n1 is cut off (a stale leader that still
 * believes it leads term 1) and n2 leads term 2 with n3 and replicates c. Then
 * x = n3 crashes in `role`:
 *  - follower: right after acknowledging c (term 2, voted for n2);
 *  - candidate: right after its self-vote for term 3 is persisted (no request left);
 *  - leader: elected for term 3 by n2, then crashes right after persisting a proposal.
 */
function crashAt(role: Role, label: string): AtRole {
  const net = new CoreNet({ n: 3, label });
  commitAB(net);
  net.partition([["n1"], ["n2", "n3"]]);
  net.elect("n2");
  net.propose("n2", "c");
  const x = "n3";
  if (role === "follower") {
    // Deliver the append of c to n3 and crash as soon as its answer has left.
    const ok = net.deliverOne((m) => m.to === x && m.msg.type === "raft-append");
    expect(ok).toBe(true);
    const acked = net.inflight.find((m) => m.from === x && m.msg.type === "raft-append-resp");
    expect((acked?.msg as AppendResponse).matchIndex).toBe(3);
    net.crash(x);
  } else {
    net.deliverAll();
    net.heartbeat("n2");
    net.deliverAll();
    net.partition([["n1"], ["n2"], ["n3"]]);
    if (role === "candidate") {
      const fx = net.timeout(x, new CrashPoint(1));
      // The first effect is the persist of term 3 and the self-vote; nothing was sent.
      expect(fx[0]).toEqual({ kind: "persist-hard-state", term: 3, votedFor: x });
      expect(sends(fx).length).toBe(2);
      expect(net.inflight.some((m) => m.from === x)).toBe(false);
    } else {
      net.partition([["n1"], ["n2", "n3"]]);
      net.elect(x);
      const fx = net.propose(x, "d");
      expect(fx[0]).toMatchObject({ kind: "persist-log", fromIndex: 4 });
      // Crash as the proposal is durable: run the step again on the dead node's disk.
      net.crash(x);
    }
  }
  const s = net.node(x);
  expect(net.isAlive(x)).toBe(false);
  // What it had in memory at the crash is what its disk must give back.
  const at = { term: s.term, votedFor: s.votedFor, log: [...s.log] };
  net.restart(x);
  return { net, x, ...at, staleLeader: "n1", staleTerm: 1 };
}

describe("crash and restart at every role keeps every persisted field", () => {
  for (const role of ROLES) {
    describe(`${role}`, () => {
      it("term: the restarted node has its term, and a stale leader's AppendEntries is refused with it", () => {
        const c = crashAt(role, `term/${role}`);
        const s = c.net.node(c.x);
        expect(s.term).toBe(role === "follower" ? 2 : 3);
        expect(s.term).toBe(c.term);
        const before = termsOf(s.log);
        // The stale leader of term 1 sends what it has (a, b and an entry of its term).
        const r = appendReq(c.net, c.x, c.staleLeader, {
          term: c.staleTerm,
          prevLogIndex: 2,
          prevLogTerm: 1,
          entries: [{ term: 1, cmd: "stale" }],
          leaderCommit: 3,
        });
        expect(r).toMatchObject({ success: false, term: c.term });
        expect(termsOf(c.net.node(c.x).log)).toEqual(before);
        expect(c.net.node(c.x).commitIndex).toBeLessThanOrEqual(2);
        // A stale candidate (term below ours, however long its log) gets no vote.
        const v = voteReq(c.net, c.x, c.staleLeader, c.term - 1, 99, c.term - 1);
        expect(v).toEqual({ type: "raft-vote-resp", term: c.term, granted: false });
        expect(c.net.node(c.x).term).toBe(c.term);
        expect(c.net.node(c.x).role).toBe("follower");
      });

      it("vote: the restarted node remembers whom it voted for in its term and refuses another candidate of that term", () => {
        const c = crashAt(role, `vote/${role}`);
        const s = c.net.node(c.x);
        expect(s.votedFor).toBe(role === "follower" ? "n2" : c.x);
        expect(s.votedFor).toBe(c.votedFor);
        // A rival candidate of the same term, with a log at least as up-to-date.
        const rival = role === "follower" ? "n1" : "n2";
        const v = voteReq(c.net, c.x, rival, c.term, 50, c.term);
        expect(v).toEqual({ type: "raft-vote-resp", term: c.term, granted: false });
        if (role === "follower") {
          // The candidate it did vote for gets the vote again (a retransmission).
          expect(voteReq(c.net, c.x, "n2", c.term, 50, c.term).granted).toBe(true);
        }
        // And in the next term it is free again: the refusal was the vote, not the log.
        expect(voteReq(c.net, c.x, rival, c.term + 1, 50, c.term).granted).toBe(true);
      });

      it("log: the restarted node has its whole log, and a stale candidate missing its last entry gets no vote", () => {
        const c = crashAt(role, `log/${role}`);
        const s = c.net.node(c.x);
        expect(s.log).toEqual(c.log);
        expect(s.log.map((e) => e.cmd)).toEqual(role === "leader" ? ["a", "b", "c", "d"] : ["a", "b", "c"]);
        // Nothing is known committed after a restart; the log is relearned, not replayed.
        expect(s.commitIndex).toBe(0);
        const last = s.log.length;
        const lastT = s.log[last - 1]!.term;
        // A candidate of a newer term whose log lacks our last entry...
        expect(voteReq(c.net, c.x, "n1", c.term + 1, last - 1, lastT).granted).toBe(false);
        // ...or ends in an older term, however long.
        expect(voteReq(c.net, c.x, "n1", c.term + 2, last + 5, lastT - 1).granted).toBe(false);
        // One with our log exactly is granted: the refusals came from the restored log.
        expect(voteReq(c.net, c.x, "n1", c.term + 3, last, lastT).granted).toBe(true);
      });
    });
  }
});

/**
 * Five nodes. n1 leads term 1; a, b reach everyone, then old1, old2 reach only n3 (n1
 * is cut off from the rest). n2 wins term 2 with n4 and n5 (n3 refuses it: its log is
 * longer) and overwrites old1, old2 on n3 with e. Then x = n3 crashes as a follower
 * right after acknowledging e, as a candidate right after its self-vote, or as a
 * leader just elected. Its disk must hold the truncated log.
 */
function truncatedThenCrash(role: Role, label: string): { net: CoreNet; x: string; oldTerm: number } {
  const net = new CoreNet({ n: 5, label });
  const x = "n3";
  commitAB(net);
  net.partition([
    ["n1", "n3"],
    ["n2", "n4", "n5"],
  ]);
  net.propose("n1", "old1");
  net.propose("n1", "old2");
  net.deliverAll();
  expect(net.node(x).log.map((e) => e.cmd)).toEqual(["a", "b", "old1", "old2"]);
  net.partition([["n1"], ["n2", "n3", "n4", "n5"]]);
  net.elect("n2");
  expect(net.node(x).votedFor).not.toBe("n2");
  const fx = net.propose("n2", "e");
  expect(fx.some((e) => e.kind === "send" && e.to === x)).toBe(true);
  if (role === "follower") {
    // Deliver the append of e to x; crash as soon as its acknowledgement has left.
    const delivered = net.deliverOne((m) => m.to === x && m.msg.type === "raft-append" && m.msg.entries.length > 0, new CrashPoint(99));
    expect(delivered).toBe(true);
  } else {
    net.deliverAll();
    net.heartbeat("n2");
    net.deliverAll();
    if (role === "candidate") {
      net.partition([["n1"], ["n2"], ["n3"], ["n4"], ["n5"]]);
      const t = net.node(x).term;
      const cfx = net.timeout(x, new CrashPoint(1));
      expect(cfx[0]).toEqual({ kind: "persist-hard-state", term: t + 1, votedFor: x });
    } else {
      net.partition([["n1"], ["n2"], ["n3", "n4", "n5"]]);
      net.elect(x);
      net.crash(x);
    }
  }
  expect(net.isAlive(x)).toBe(false);
  expect(net.disk(x).log.map((e) => e.cmd)).toEqual(["a", "b", "e"]);
  net.restart(x);
  return { net, x, oldTerm: 1 };
}

describe("a truncation survives a crash at every role", () => {
  for (const role of ROLES) {
    it(`${role}: the overwritten entries do not come back, and their stale owner gets no vote`, () => {
      const { net, x, oldTerm } = truncatedThenCrash(role, `truncation/${role}`);
      const s = net.node(x);
      expect(s.log.map((e) => e.cmd)).toEqual(["a", "b", "e"]);
      const eTerm = s.log[2]!.term;
      expect(eTerm).toBeGreaterThan(oldTerm);
      // The stale candidate n1 holds a, b, old1, old2 (all of term 1): longer but older.
      const v = voteReq(net, x, "n1", s.term + 1, 4, oldTerm);
      expect(v.granted).toBe(false);
      // The control: a log ending in e's term gets the vote, so the refusal came from the restored, truncated log.
      expect(voteReq(net, x, "n1", s.term + 2, 3, eTerm).granted).toBe(true);
    });
  }
});

describe("persist before send, enforced by crashing between any two effects of any step", () => {
  /**
   * A run with an election, replication, a partition with a stale leader appending
   * entries only it holds, a second leader overwriting them on heal, and a third
   * election. Every node's every step in it is a crash point.
   */
  function script(net: CoreNet): void {
    net.timeout("n1");
    net.deliverAll();
    for (const cmd of ["a", "b"]) net.propose("n1", cmd);
    net.deliverAll();
    net.heartbeat("n1");
    net.deliverAll();
    net.partition([["n1"], ["n2", "n3"]]);
    net.propose("n1", "stale");
    net.timeout("n2");
    net.deliverAll();
    net.propose("n2", "c");
    net.deliverAll();
    net.heal();
    net.heartbeat("n1");
    net.deliverAll();
    net.heartbeat("n2");
    net.deliverAll();
    net.timeout("n3");
    net.deliverAll();
    for (const id of net.ids) net.propose(id, `d-${id}`);
    net.deliverAll();
  }

  /** After the script, with everyone up and connected: elect, commit one entry, and check agreement. */
  function recover(net: CoreNet): void {
    net.heal();
    for (const id of net.ids) if (!net.isAlive(id)) net.restart(id);
    for (let round = 0; round < 12 && net.leaders().length !== 1; round++) {
      net.timeout(net.ids[round % net.ids.length]!);
      net.deliverAll();
    }
    const [leader] = net.leaders();
    if (leader === undefined) net.fail("recover", "no leader after 12 rounds");
    net.propose(leader, "final");
    net.deliverAll();
    net.heartbeat(leader);
    net.deliverAll();
    const logs = net.ids.map((id) => JSON.stringify(net.node(id).log));
    if (new Set(logs).size !== 1) net.fail("recover", `logs differ: ${logs.join(" | ")}`);
    const log = net.node(leader).log;
    // Leader Completeness: everything ever applied anywhere is in the final log.
    net.committedLog().forEach((e, i) => {
      if (log[i]?.term !== e.term || log[i]?.cmd !== e.cmd)
        net.fail("leader completeness", `applied (${e.term}, ${e.cmd}) at ${i + 1} is not in the final log`);
    });
    if (!log.some((e) => e.cmd === "final")) net.fail("recover", "the final entry is not in the log");
  }

  it("the uncrashed script is safe and reaches agreement", () => {
    const net = new CoreNet({ n: 3, label: "script" });
    script(net);
    recover(net);
    expect(net.committedLog().map((e) => e.cmd)).toEqual(expect.arrayContaining(["a", "b", "c", "final"]));
    expect(net.committedLog().some((e) => e.cmd === "stale")).toBe(false);
  });

  it("every crash point (node, step, effects executed) leaves the cluster safe", () => {
    const base = new CoreNet({ n: 3, label: "count" });
    script(base);
    const plan = base.effectsPerInput;
    let points = 0;
    const kindsCrashedAfter = new Set<string>();
    for (let input = 0; input < plan.length; input++) {
      for (let k = 0; k <= plan[input]!; k++) {
        const net = new CoreNet({ n: 3, label: `crash input ${input} after ${k} effects` });
        net.crashAt = { input, afterEffects: k };
        script(net);
        recover(net);
        // The run up to the crash is the uncrashed one, so every planned point is reached.
        const c = net.crashed;
        if (!c) return net.fail("crash point", `input ${input} was never fed`);
        points++;
        if (k > 0) kindsCrashedAfter.add(c.effects[k - 1]!.kind);
      }
    }
    // The enumeration really crashed after persists and between sends.
    expect(points).toBe(plan.reduce((a, n) => a + n + 1, 0));
    expect(plan.length).toBeGreaterThan(40);
    expect([...kindsCrashedAfter].sort()).toEqual(expect.arrayContaining(["persist-hard-state", "persist-log", "send", "set-timer"]));
  });

  it("the check can fail: with votedForNotPersisted a granted vote leaves before it is durable", () => {
    const net = new CoreNet({ n: 3, label: "bug", bugs: { votedForNotPersisted: true } });
    expect(() => script(net)).toThrowError(CoreNetError);
    expect(() => {
      const n2 = new CoreNet({ n: 3, label: "bug2", bugs: { votedForNotPersisted: true } });
      n2.timeout("n1");
      n2.deliverAll();
    }).toThrowError(/durability before send: n1 sent raft-vote/);
  });
});
