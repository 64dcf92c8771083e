import { describe, expect, it } from "vitest";
import { cloneState, quorum, step } from "../../services/raft/core/step.js";
import { firstIndexOfTerm, isUpToDate, lastIndexOfTerm, termAt } from "../../services/raft/core/log.js";
import type { Entry, RaftConfig, RaftEffect, RaftInput, RaftMessage, RaftState } from "../../services/raft/core/types.js";
import { boot, cfg, type Cmd } from "./core-fixture.js";

/**
 * Unit checks of the core's smaller promises, each written to kill mutants StrykerJS
 * left alive (docs/raft-bugs.md, "Mutation testing"): exact timer bounds, quorum sizes,
 * who counts as a peer, which messages get answered, what is persisted when.
 */

function feed(s: RaftState<Cmd>, input: RaftInput<Cmd>): RaftEffect<Cmd>[] {
  return step(s, input).effects;
}
const msg = (s: RaftState<Cmd>, from: string, m: RaftMessage<Cmd>) => feed(s, { type: "message", from, msg: m });
const sends = (fx: RaftEffect<Cmd>[]) => fx.filter((e) => e.kind === "send");
const entries = (...terms: number[]): Entry<Cmd>[] => terms.map((term, i) => ({ term, cmd: `c${i + 1}` }));

function leaderOf(c: RaftConfig, log: Entry<Cmd>[], term: number): RaftState<Cmd> {
  const { s } = boot(c, { term: term - 1, log });
  feed(s, { type: "election-timeout" });
  for (const p of c.peers.slice(1, quorum(c))) msg(s, p, { type: "raft-vote-resp", term, granted: true });
  expect(s.role).toBe("leader");
  return s;
}

describe("election timer", () => {
  it("draws from the closed interval [min, max]: random 0 gives min, random just below 1 gives max", () => {
    const delay = (r: number) => boot(cfg({ random: () => r })).fx.find((e) => e.kind === "set-timer")!;
    expect(delay(0)).toEqual({ kind: "set-timer", timer: "election", delayMs: 150 });
    expect(delay(0.999999)).toEqual({ kind: "set-timer", timer: "election", delayMs: 300 });
    expect(delay(0.5)).toEqual({ kind: "set-timer", timer: "election", delayMs: 225 });
  });

  it("is re-armed by a granted vote and by an AppendEntries, not by a refused vote", () => {
    const { s } = boot(cfg(), { term: 2, log: entries(1, 2) });
    const refused = msg(s, "n2", { type: "raft-vote", term: 2, lastLogIndex: 0, lastLogTerm: 0 });
    expect(refused.some((e) => e.kind === "set-timer")).toBe(false);
    const granted = msg(s, "n2", { type: "raft-vote", term: 2, lastLogIndex: 2, lastLogTerm: 2 });
    expect(granted.filter((e) => e.kind === "set-timer")).toEqual([{ kind: "set-timer", timer: "election", delayMs: 225 }]);
    const hb = msg(s, "n2", { type: "raft-append", term: 2, prevLogIndex: 0, prevLogTerm: 0, entries: [], leaderCommit: 0, seq: 1 });
    expect(hb.filter((e) => e.kind === "set-timer")).toEqual([{ kind: "set-timer", timer: "election", delayMs: 225 }]);
  });

  it("a leader ignores a late election timeout; a leader stepping down cancels its heartbeat and re-arms its election timer", () => {
    const s = leaderOf(cfg(), [], 1);
    expect(feed(s, { type: "election-timeout" })).toEqual([]);
    expect(s).toMatchObject({ role: "leader", term: 1 });
    const fx = msg(s, "n3", { type: "raft-vote", term: 2, lastLogIndex: 0, lastLogTerm: 0 });
    expect(fx.filter((e) => e.kind === "cancel-timer")).toEqual([{ kind: "cancel-timer", timer: "heartbeat" }]);
    expect(fx.filter((e) => e.kind === "set-timer").map((e) => (e as { timer: string }).timer)).toContain("election");
  });

  it("a candidate that steps down keeps its election timer (no re-arm but for a granted vote)", () => {
    const { s } = boot(cfg());
    feed(s, { type: "election-timeout" });
    const fx = msg(s, "n2", { type: "raft-vote-resp", term: 5, granted: false });
    expect(s).toMatchObject({ role: "follower", term: 5, votedFor: null });
    expect(fx.filter((e) => e.kind === "set-timer" || e.kind === "cancel-timer")).toEqual([]);
  });

  it("heartbeats go out every heartbeatIntervalMs while leader, and not after", () => {
    const s = leaderOf(cfg(), [], 1);
    const fx = feed(s, { type: "heartbeat-timeout" });
    expect(fx.filter((e) => e.kind === "set-timer")).toEqual([{ kind: "set-timer", timer: "heartbeat", delayMs: 50 }]);
    expect(sends(fx).map((e) => (e as { to: string }).to)).toEqual(["n2", "n3"]);
    msg(s, "n2", { type: "raft-vote-resp", term: 3, granted: false });
    expect(feed(s, { type: "heartbeat-timeout" })).toEqual([]);
  });
});

describe("quorum and membership", () => {
  it("a majority of the full cluster, for sizes 1 to 7", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => quorum(cfg({ peers: Array.from({ length: n }, (_, i) => `n${i + 1}`) })))).toEqual([1, 2, 2, 3, 3, 4, 4]);
  });

  it("a single server elects itself at once and commits alone", () => {
    const { s } = boot(cfg({ peers: ["n1"] }));
    const fx = feed(s, { type: "election-timeout" });
    expect(s.role).toBe("leader");
    expect(sends(fx)).toEqual([]);
    const p = feed(s, { type: "propose", id: 1, cmd: "x" });
    expect(p.filter((e) => e.kind === "apply")).toEqual([{ kind: "apply", index: 1, term: 1, cmd: "x", proposalId: 1 }]);
  });

  it("messages from a non-member or from itself are ignored entirely", () => {
    const c = cfg({ peers: ["n1", "n2", "n3", "n4"] });
    const { s } = boot(c);
    feed(s, { type: "election-timeout" });
    expect(msg(s, "n9", { type: "raft-vote-resp", term: 1, granted: true })).toEqual([]);
    expect(msg(s, "n1", { type: "raft-vote-resp", term: 1, granted: true })).toEqual([]);
    msg(s, "n2", { type: "raft-vote-resp", term: 1, granted: true });
    expect(s.role).toBe("candidate"); // 2 of 4: the outsider's vote did not count
    expect(msg(s, "n9", { type: "raft-vote", term: 7, lastLogIndex: 0, lastLogTerm: 0 })).toEqual([]);
    expect(s.term).toBe(1);
    msg(s, "n3", { type: "raft-vote-resp", term: 1, granted: true });
    expect(s.role).toBe("leader");
  });

  it("a repeated vote-granted response from one peer counts once", () => {
    const { s } = boot(cfg({ peers: ["n1", "n2", "n3", "n4", "n5"] }));
    feed(s, { type: "election-timeout" });
    msg(s, "n2", { type: "raft-vote-resp", term: 1, granted: true });
    msg(s, "n2", { type: "raft-vote-resp", term: 1, granted: true });
    expect(s.role).toBe("candidate");
  });
});

describe("what gets an answer", () => {
  it("a stale vote or append request is answered with the newer term; a stale response is not answered", () => {
    const { s } = boot(cfg(), { term: 4 });
    expect(sends(msg(s, "n2", { type: "raft-vote", term: 3, lastLogIndex: 0, lastLogTerm: 0 }))).toEqual([
      { kind: "send", to: "n2", msg: { type: "raft-vote-resp", term: 4, granted: false } },
    ]);
    expect(sends(msg(s, "n2", { type: "raft-append", term: 3, prevLogIndex: 0, prevLogTerm: 0, entries: [], leaderCommit: 0, seq: 7 }))).toEqual([
      { kind: "send", to: "n2", msg: { type: "raft-append-resp", term: 4, success: false, matchIndex: 0, conflictTerm: 0, conflictIndex: 0, seq: 7 } },
    ]);
    expect(msg(s, "n2", { type: "raft-vote-resp", term: 3, granted: true })).toEqual([]);
    expect(msg(s, "n2", { type: "raft-append-resp", term: 3, success: true, matchIndex: 0, conflictTerm: 0, conflictIndex: 0, seq: 1 })).toEqual([]);
  });

  it("a follower drops responses; a leader ignores an AppendEntries of its own term", () => {
    const { s } = boot(cfg(), { term: 2 });
    expect(msg(s, "n2", { type: "raft-vote-resp", term: 2, granted: true })).toEqual([]);
    expect(msg(s, "n2", { type: "raft-append-resp", term: 2, success: true, matchIndex: 3, conflictTerm: 0, conflictIndex: 0, seq: 1 })).toEqual([]);
    const l = leaderOf(cfg(), [], 3);
    expect(msg(l, "n2", { type: "raft-append", term: 3, prevLogIndex: 0, prevLogTerm: 0, entries: entries(3), leaderCommit: 0, seq: 1 })).toEqual([]);
    expect(l).toMatchObject({ role: "leader", log: [] });
  });

  it("a repeated vote for the same candidate needs no new persist; a first vote does, before the answer", () => {
    const { s } = boot(cfg());
    const first = msg(s, "n2", { type: "raft-vote", term: 1, lastLogIndex: 0, lastLogTerm: 0 });
    expect(first.map((e) => e.kind)).toEqual(["persist-hard-state", "set-timer", "send"]);
    const again = msg(s, "n2", { type: "raft-vote", term: 1, lastLogIndex: 0, lastLogTerm: 0 });
    expect(again.map((e) => e.kind)).toEqual(["set-timer", "send"]);
  });

  it("a heartbeat that changes nothing persists nothing; a new term alone persists the hard state only", () => {
    const { s } = boot(cfg(), { term: 1, log: entries(1) });
    const same = msg(s, "n2", { type: "raft-append", term: 1, prevLogIndex: 1, prevLogTerm: 1, entries: [], leaderCommit: 0, seq: 1 });
    expect(same.some((e) => e.kind.startsWith("persist"))).toBe(false);
    const newer = msg(s, "n2", { type: "raft-append", term: 2, prevLogIndex: 1, prevLogTerm: 1, entries: [], leaderCommit: 0, seq: 1 });
    expect(newer.filter((e) => e.kind.startsWith("persist"))).toEqual([{ kind: "persist-hard-state", term: 2, votedFor: null }]);
  });
});

describe("log arithmetic", () => {
  const log = entries(1, 1, 2, 2, 2, 4);
  it("termAt: 0 at index 0 and past the end", () => {
    expect([0, 1, 3, 6, 7, -1].map((i) => termAt(log, i))).toEqual([0, 1, 2, 4, 0, 0]);
  });
  it("firstIndexOfTerm searches back from `from` to the first index of the term", () => {
    expect(firstIndexOfTerm(log, 2, 5)).toBe(3);
    expect(firstIndexOfTerm(log, 1, 2)).toBe(1);
    expect(firstIndexOfTerm(log, 4, 6)).toBe(6);
  });
  it("lastIndexOfTerm: the last index of the term, or 0", () => {
    expect([1, 2, 3, 4, 5].map((t) => lastIndexOfTerm(log, t))).toEqual([2, 5, 0, 6, 0]);
    expect(lastIndexOfTerm([], 1)).toBe(0);
  });
  it("isUpToDate: a later last term wins; equal last terms compare lengths", () => {
    // Ours: the log above, last index 6 of term 4.
    expect(isUpToDate(6, 4, 1, 5)).toBe(true);
    expect(isUpToDate(6, 4, 99, 3)).toBe(false);
    expect(isUpToDate(6, 4, 6, 4)).toBe(true);
    expect(isUpToDate(6, 4, 5, 4)).toBe(false);
    expect(isUpToDate(0, 0, 0, 0)).toBe(true);
  });
  it("after compaction (a snapshot through index 4 of term 2): indexes past it, its own term at it, 0 below", () => {
    const rest = entries(2, 4); // indexes 5 and 6
    expect([3, 4, 5, 6, 7].map((i) => termAt(rest, i, 4, 2))).toEqual([0, 2, 2, 4, 0]);
    expect(firstIndexOfTerm(rest, 2, 5, 4, 2)).toBe(5);
    expect([2, 4, 3].map((t) => lastIndexOfTerm(rest, t, 4, 2))).toEqual([5, 6, 0]);
    expect(lastIndexOfTerm([], 2, 4, 2)).toBe(4);
  });
});

describe("cloneState", () => {
  it("is independent of the original in every mutable part", () => {
    const s = leaderOf(cfg(), entries(1), 2);
    feed(s, { type: "propose", id: 1, cmd: "p" });
    feed(s, { type: "read-index", id: 2 });
    const c = cloneState(s);
    expect(c).toEqual(s);
    // toEqual does not see the PeerTables' private fields: their entries are compared here.
    for (const k of ["nextIndex", "matchIndex", "ackedSeq"] as const) expect([...c[k]]).toEqual([...s[k]]);
    expect([...c.nextIndex]).toEqual([
      ["n2", 3],
      ["n3", 3],
    ]);
    feed(s, { type: "propose", id: 3, cmd: "q" });
    msg(s, "n2", { type: "raft-append-resp", term: 2, success: true, matchIndex: 2, conflictTerm: 0, conflictIndex: 0, seq: s.seq });
    s.votes.add("zz");
    expect(c.log.length).toBe(2);
    expect(s.log.length).toBe(3);
    expect(c.nextIndex).not.toBe(s.nextIndex);
    expect(c.matchIndex.get("n2")).toBe(0);
    expect(c.ackedSeq.size).toBe(0);
    expect(c.proposals.size).toBe(1);
    expect([...s.proposals.keys()]).toEqual([3]); // p was applied and answered, q is pending
    expect([...c.proposals.keys()]).toEqual([2]);
    expect(c.reads).toHaveLength(1);
    expect(c.reads[0]).not.toBe(s.reads[0]);
    expect(c.votes.has("zz")).toBe(false);
  });
});
