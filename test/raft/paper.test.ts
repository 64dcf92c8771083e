import { describe, expect, it } from "vitest";
import seedrandom from "seedrandom";
import type { RaftBug } from "../../services/raft/api.js";
import { cloneState, initialState, step } from "../../services/raft/core/step.js";
import { rulesWithBugs } from "../../services/raft/variants.js";
import type { AppendRequest, AppendResponse, Entry, RaftEffect, RaftInput, RaftMessage, RaftState, VoteResponse } from "../../services/raft/core/types.js";

/**
 * The core's step function checked against the Raft paper (Ongaro & Ousterhout 2014),
 * sentence by sentence, in the manner of etcd's raft_paper_test.go. No simulator:
 * inputs in, effects out.
 */

const PEERS = ["n1", "n2", "n3"];

function node(
  id: string,
  opts: { bugs?: Partial<Record<RaftBug, boolean>>; term?: number; votedFor?: string | null; log?: Entry<string>[]; peers?: string[] } = {},
) {
  const rnd = seedrandom(`paper/${id}`);
  let s: RaftState<string> = initialState<string>({
    id,
    peers: opts.peers ?? PEERS,
    electionTimeoutMsMin: 150,
    electionTimeoutMsMax: 300,
    heartbeatIntervalMs: 50,
    entriesPerAppendMax: 64,
    noopOnElection: false,
    rules: rulesWithBugs(opts.bugs),
    random: () => rnd(),
  });
  s = step(s, { type: "restart", persisted: { term: opts.term ?? 0, votedFor: opts.votedFor ?? null, log: opts.log ?? [] } }).state;
  return {
    get s() {
      return s;
    },
    feed(input: RaftInput<string>): RaftEffect<string>[] {
      const r = step(s, input);
      s = r.state;
      return r.effects;
    },
    msg(from: string, m: RaftMessage<string>): RaftEffect<string>[] {
      return this.feed({ type: "message", from, msg: m });
    },
  };
}

const sends = (effects: RaftEffect<string>[]) => effects.flatMap((e) => (e.kind === "send" ? [{ to: e.to, msg: e.msg }] : []));
const kinds = (effects: RaftEffect<string>[]) => effects.map((e) => e.kind);
const entries = (...terms: number[]): Entry<string>[] => terms.map((term, i) => ({ term, cmd: `c${i + 1}` }));

function append(term: number, prevLogIndex: number, prevLogTerm: number, es: Entry<string>[], leaderCommit = 0): AppendRequest<string> {
  return { type: "raft-append", term, prevLogIndex, prevLogTerm, entries: es, leaderCommit, seq: 1 };
}

/** A leader of `term` over PEERS elected with `log`. */
function leader(log: Entry<string>[], term: number, bugs: Partial<Record<RaftBug, boolean>> = {}) {
  const n = node("n1", { log, term: term - 1, bugs });
  n.feed({ type: "election-timeout" });
  n.msg("n2", { type: "raft-vote-resp", term, granted: true });
  expect(n.s.role).toBe("leader");
  return n;
}

describe("§5.2 leader election", () => {
  it('"If a follower receives no communication over a period of time called the election timeout, then it assumes there is no viable leader and begins an election"', () => {
    const n = node("n1");
    expect(n.s.role).toBe("follower");
    const fx = n.feed({ type: "election-timeout" });
    // "a follower increments its current term and transitions to candidate state. It then
    // votes for itself and issues RequestVote RPCs in parallel to each of the other servers"
    expect(n.s).toMatchObject({ role: "candidate", term: 1, votedFor: "n1" });
    expect(sends(fx).map((x) => [x.to, x.msg.type, x.msg.term])).toEqual([
      ["n2", "raft-vote", 1],
      ["n3", "raft-vote", 1],
    ]);
  });

  it('"Raft uses randomized election timeouts ... chosen randomly from a fixed interval (e.g., 150–300ms)"', () => {
    const n = node("n1");
    const delays = new Set<number>();
    for (let i = 0; i < 20; i++) {
      for (const e of n.feed({ type: "election-timeout" })) {
        if (e.kind === "set-timer" && e.timer === "election") {
          expect(e.delayMs).toBeGreaterThanOrEqual(150);
          expect(e.delayMs).toBeLessThanOrEqual(300);
          delays.add(e.delayMs);
        }
      }
    }
    expect(delays.size).toBeGreaterThan(5);
  });

  it('"A candidate wins an election if it receives votes from a majority of the servers in the full cluster for the same term"', () => {
    const n = node("n1", { peers: ["n1", "n2", "n3", "n4", "n5"] });
    n.feed({ type: "election-timeout" });
    n.msg("n2", { type: "raft-vote-resp", term: 1, granted: true });
    expect(n.s.role).toBe("candidate"); // 2 of 5
    n.msg("n3", { type: "raft-vote-resp", term: 1, granted: false });
    expect(n.s.role).toBe("candidate");
    const fx = n.msg("n4", { type: "raft-vote-resp", term: 1, granted: true });
    expect(n.s.role).toBe("leader"); // 3 of 5
    // "Once a candidate wins an election ... It then sends heartbeat messages to all of the other servers"
    expect(
      sends(fx)
        .filter((x) => x.msg.type === "raft-append")
        .map((x) => x.to),
    ).toEqual(["n2", "n3", "n4", "n5"]);
  });

  it('"Each server will vote for at most one candidate in a given term, on a first-come-first-served basis"', () => {
    const n = node("n3");
    const g1 = sends(n.msg("n1", { type: "raft-vote", term: 1, lastLogIndex: 0, lastLogTerm: 0 }))[0]!.msg as VoteResponse;
    const g2 = sends(n.msg("n2", { type: "raft-vote", term: 1, lastLogIndex: 0, lastLogTerm: 0 }))[0]!.msg as VoteResponse;
    expect([g1.granted, g2.granted]).toEqual([true, false]);
    // A repeated request from the same candidate (a retransmission) is granted again.
    const g3 = sends(n.msg("n1", { type: "raft-vote", term: 1, lastLogIndex: 0, lastLogTerm: 0 }))[0]!.msg as VoteResponse;
    expect(g3.granted).toBe(true);
  });

  it('"If AppendEntries RPC received from new leader: convert to follower" (Figure 2, candidates)', () => {
    const n = node("n1");
    n.feed({ type: "election-timeout" });
    n.msg("n2", append(1, 0, 0, []));
    expect(n.s).toMatchObject({ role: "follower", term: 1, leaderId: "n2", votedFor: "n1" });
  });
});

describe("§5.1 terms", () => {
  it('"If a candidate or leader discovers that its term is out of date, it immediately reverts to follower state"', () => {
    const n = leader(entries(1), 2);
    n.msg("n3", { type: "raft-vote-resp", term: 5, granted: false });
    expect(n.s).toMatchObject({ role: "follower", term: 5, votedFor: null });
  });

  it('"If a server receives a request with a stale term number, it rejects the request"', () => {
    const n = node("n2", { term: 3 });
    const before = cloneState(n.s);
    const fx = n.msg("n1", append(2, 0, 0, entries(2)));
    const r = sends(fx)[0]!.msg as AppendResponse;
    expect(r).toMatchObject({ type: "raft-append-resp", term: 3, success: false });
    expect(n.s.log).toEqual(before.log);
    const v = sends(n.msg("n3", { type: "raft-vote", term: 2, lastLogIndex: 9, lastLogTerm: 2 }))[0]!.msg as VoteResponse;
    expect(v).toMatchObject({ term: 3, granted: false });
  });

  it("bug acceptStaleTermAppendEntries: the stale request is taken", () => {
    const n = node("n2", { term: 3, bugs: { acceptStaleTermAppendEntries: true } });
    const r = sends(n.msg("n1", append(2, 0, 0, entries(2))))[0]!.msg as AppendResponse;
    expect(r.success).toBe(true);
    expect(n.s.log.length).toBe(1);
  });
});

describe("§5.3 log replication", () => {
  it('"If the follower does not find an entry in its log with the same index and term, then it refuses the new entries"', () => {
    const n = node("n2", { term: 3, log: entries(1, 1, 2) });
    const r = sends(n.msg("n1", append(3, 3, 3, entries(3))))[0]!.msg as AppendResponse;
    // Fast backup: the conflicting term and the first index this follower holds of it.
    expect(r).toMatchObject({ success: false, conflictTerm: 2, conflictIndex: 3 });
    const short = sends(n.msg("n1", append(3, 7, 3, [])))[0]!.msg as AppendResponse;
    expect(short).toMatchObject({ success: false, conflictTerm: 0, conflictIndex: 4 });
    expect(n.s.log.length).toBe(3);
  });

  it('"If an existing entry conflicts with a new one (same index but different terms), delete the existing entry and all that follow it" — and persist before answering', () => {
    const n = node("n2", { term: 3, log: entries(1, 1, 2, 2) });
    const fx = n.msg("n1", append(3, 2, 1, [{ term: 3, cmd: "x" }]));
    expect(n.s.log.map((e) => e.term)).toEqual([1, 1, 3]);
    expect(kinds(fx).indexOf("persist-log")).toBeLessThan(kinds(fx).indexOf("send"));
    expect(fx[kinds(fx).indexOf("persist-log")]).toMatchObject({ kind: "persist-log", fromIndex: 3, entries: [{ term: 3, cmd: "x" }] });
  });

  it("a delayed, shorter AppendEntries does not cut entries a later one added (no conflict, no truncation)", () => {
    const n = node("n2", { term: 1 });
    n.msg("n1", append(1, 0, 0, entries(1, 1, 1)));
    const fx = n.msg("n1", append(1, 0, 0, entries(1)));
    expect(n.s.log.length).toBe(3);
    expect(kinds(fx)).not.toContain("persist-log");
  });

  it('"If leaderCommit > commitIndex, set commitIndex = min(leaderCommit, index of last new entry)"', () => {
    const n = node("n2", { term: 1 });
    const fx = n.msg("n1", append(1, 0, 0, entries(1, 1), 5));
    expect(n.s.commitIndex).toBe(2);
    expect(fx.filter((e) => e.kind === "apply").map((e) => (e.kind === "apply" ? e.index : 0))).toEqual([1, 2]);
  });

  it("the leader skips a whole conflicting term when backing up (fast backup)", () => {
    const n = leader(entries(1, 1, 1, 4, 4), 5);
    const resp: AppendResponse = { type: "raft-append-resp", term: 5, success: false, matchIndex: 0, conflictTerm: 2, conflictIndex: 2, seq: 1 };
    const fx = n.msg("n2", resp);
    const m = sends(fx)[0]!.msg as AppendRequest<string>;
    // The leader has no term-2 entry: it jumps to the follower's first index of term 2.
    expect(m).toMatchObject({ prevLogIndex: 1, prevLogTerm: 1 });
    expect(m.entries.length).toBe(4);
  });
});

describe("§5.4 safety", () => {
  it('"the voter denies its vote if its own log is more up-to-date than that of the candidate"', () => {
    const later = node("n3", { term: 3, log: entries(1, 2) });
    // "If the logs have last entries with different terms, then the log with the later term is more up-to-date."
    const v1 = sends(later.msg("n1", { type: "raft-vote", term: 4, lastLogIndex: 5, lastLogTerm: 1 }))[0]!.msg as VoteResponse;
    expect(v1.granted).toBe(false);
    // "If the logs end with the same term, then whichever log is longer is more up-to-date."
    const v2 = sends(later.msg("n1", { type: "raft-vote", term: 5, lastLogIndex: 1, lastLogTerm: 2 }))[0]!.msg as VoteResponse;
    expect(v2.granted).toBe(false);
    const v3 = sends(later.msg("n1", { type: "raft-vote", term: 6, lastLogIndex: 2, lastLogTerm: 2 }))[0]!.msg as VoteResponse;
    expect(v3.granted).toBe(true);
    const buggy = node("n3", { term: 3, log: entries(1, 2), bugs: { voteWithoutUpToDateCheck: true } });
    const v4 = sends(buggy.msg("n1", { type: "raft-vote", term: 4, lastLogIndex: 1, lastLogTerm: 1 }))[0]!.msg as VoteResponse;
    expect(v4.granted).toBe(true);
  });

  it('"Raft never commits log entries from previous terms by counting replicas" (Figure 8)', () => {
    const ok = (n: ReturnType<typeof leader>) =>
      n.msg("n2", { type: "raft-append-resp", term: 4, success: true, matchIndex: 2, conflictTerm: 0, conflictIndex: 0, seq: 1 });
    const real = leader(entries(1, 2), 4);
    ok(real);
    expect(real.s.commitIndex).toBe(0); // index 2 (term 2) is on 2 of 3, but not of term 4
    // "Only log entries from the leader's current term are committed by counting replicas;
    // once an entry from the current term has been committed in this way, then all prior
    // entries are committed indirectly"
    real.feed({ type: "propose", id: 1, cmd: "now" });
    const fx = real.msg("n2", { type: "raft-append-resp", term: 4, success: true, matchIndex: 3, conflictTerm: 0, conflictIndex: 0, seq: 1 });
    expect(real.s.commitIndex).toBe(3);
    expect(fx.filter((e) => e.kind === "apply").map((e) => (e.kind === "apply" ? e.index : 0))).toEqual([1, 2, 3]);
    const buggy = leader(entries(1, 2), 4, { commitPreviousTermByCounting: true });
    ok(buggy);
    expect(buggy.s.commitIndex).toBe(2);
  });

  it('"Updated on stable storage before responding to RPCs" (Figure 2): the vote is persisted before it is sent', () => {
    const n = node("n3");
    const fx = n.msg("n1", { type: "raft-vote", term: 7, lastLogIndex: 0, lastLogTerm: 0 });
    expect(kinds(fx)[0]).toBe("persist-hard-state");
    expect(fx[0]).toMatchObject({ term: 7, votedFor: "n1" });
    expect(kinds(fx).indexOf("persist-hard-state")).toBeLessThan(kinds(fx).indexOf("send"));
    const buggy = node("n3", { bugs: { votedForNotPersisted: true } });
    expect(buggy.msg("n1", { type: "raft-vote", term: 7, lastLogIndex: 0, lastLogTerm: 0 })[0]).toMatchObject({ term: 7, votedFor: null });
  });

  it("a restart keeps term, vote and log, and forgets commitIndex and role", () => {
    const n = node("n2", { term: 4, votedFor: "n1", log: entries(1, 4) });
    expect(n.s).toMatchObject({ term: 4, votedFor: "n1", role: "follower", commitIndex: 0, lastApplied: 0 });
    const v = sends(n.msg("n3", { type: "raft-vote", term: 4, lastLogIndex: 9, lastLogTerm: 4 }))[0]!.msg as VoteResponse;
    expect(v.granted).toBe(false);
  });
});

describe("thesis §6.4 read index", () => {
  it("a read is answered only after a majority acknowledges a heartbeat sent after it, and after a current-term commit", () => {
    const n = leader(entries(1), 2);
    const fx = n.feed({ type: "read-index", id: 9 });
    // No entry of term 2 committed yet: a no-op is appended and replicated.
    expect(n.s.log.map((e) => e.cmd)).toEqual(["c1", null]);
    const seq = (sends(fx)[0]!.msg as AppendRequest<string>).seq;
    const stale = n.msg("n2", { type: "raft-append-resp", term: 2, success: true, matchIndex: 1, conflictTerm: 0, conflictIndex: 0, seq: seq - 1 });
    expect(stale.some((e) => e.kind === "reply")).toBe(false);
    const done = n.msg("n2", { type: "raft-append-resp", term: 2, success: true, matchIndex: 2, conflictTerm: 0, conflictIndex: 0, seq });
    expect(done.filter((e) => e.kind === "reply")).toEqual([{ kind: "reply", id: 9, result: { ok: true } }]);
    // The no-op is applied (as cmd null) before the read is answered.
    expect(kinds(done).lastIndexOf("apply")).toBeLessThan(kinds(done).indexOf("reply"));
  });

  it("pending reads and proposals fail when leadership is lost", () => {
    const n = leader([], 1);
    n.feed({ type: "propose", id: 1, cmd: "a" });
    n.feed({ type: "read-index", id: 2 });
    const fx = n.msg("n3", { type: "raft-vote", term: 9, lastLogIndex: 0, lastLogTerm: 0 });
    expect(fx.filter((e) => e.kind === "reply").map((e) => (e.kind === "reply" ? [e.id, e.result] : []))).toEqual([
      [1, { ok: false, error: "lost-leadership" }],
      [2, { ok: false, error: "lost-leadership" }],
    ]);
  });
});
