import { describe, expect, it } from "vitest";
import { initialState, quorum, step } from "../../services/raft/core/step.js";
import { lastIndexOfTerm } from "../../services/raft/core/log.js";
import { PeerTable } from "../../services/raft/core/peer-table.js";
import type { AppendRequest, AppendResponse, Entry, RaftConfig, RaftEffect, RaftInput, RaftMessage, RaftState } from "../../services/raft/core/types.js";
import { boot as bootCore, cfg, type Cmd } from "./core-fixture.js";
import { rulesWithBugs } from "../../services/raft/variants.js";

/**
 * Tests written against the survivors of the first StrykerJS run on services/raft/core
 * (docs/raft-bugs.md, "Mutation testing"): each pins a behaviour a mutant changed
 * without any other test noticing. Through the core API only.
 */

const boot = (c: RaftConfig, p?: Parameters<typeof bootCore>[1]): RaftState<Cmd> => bootCore(c, p).s;
const feed = (s: RaftState<Cmd>, i: RaftInput<Cmd>): RaftEffect<Cmd>[] => step(s, i).effects;
const msg = (s: RaftState<Cmd>, from: string, m: RaftMessage<Cmd>) => feed(s, { type: "message", from, msg: m });
const entries = (...terms: number[]): Entry<Cmd>[] => terms.map((term, i) => ({ term, cmd: `c${i + 1}` }));
const appendsTo = (fx: RaftEffect<Cmd>[], to: string) =>
  fx.flatMap((e) => (e.kind === "send" && e.to === to && e.msg.type === "raft-append" ? [e.msg as AppendRequest<Cmd>] : []));
const resp = (term: number, o: Partial<AppendResponse>): AppendResponse => ({
  type: "raft-append-resp",
  term,
  success: true,
  matchIndex: 0,
  conflictTerm: 0,
  conflictIndex: 0,
  seq: 0,
  ...o,
});

function leaderOf(c: RaftConfig, log: Entry<Cmd>[], term: number): { s: RaftState<Cmd>; fx: RaftEffect<Cmd>[] } {
  const s = boot(c, { term: term - 1, log });
  let fx = feed(s, { type: "election-timeout" });
  for (const p of c.peers.slice(1, quorum(c))) fx = msg(s, p, { type: "raft-vote-resp", term, granted: true });
  expect(s.role).toBe("leader");
  return { s, fx };
}

describe("fresh state and election", () => {
  it("initialState is the documented fresh node", () => {
    const s = initialState<Cmd>(cfg());
    // The per-peer tables are PeerTables (private fields, which toStrictEqual does not see): checked by content.
    // The scratch is working memory, not protocol state: checked to be the node's own, below.
    expect({ ...s, cfg: undefined, nextIndex: undefined, matchIndex: undefined, ackedSeq: undefined, scratch: undefined }).toStrictEqual({
      cfg: undefined,
      term: 0,
      votedFor: null,
      log: [],
      snapshotIndex: 0,
      snapshotTerm: 0,
      compactIndex: 0,
      role: "follower",
      leaderId: undefined,
      commitIndex: 0,
      lastApplied: 0,
      votes: new Set(),
      nextIndex: undefined,
      matchIndex: undefined,
      seq: 0,
      ackedSeq: undefined,
      reads: [],
      readRoundSeq: 0,
      proposals: new Map(),
      noopAppended: false,
      scratch: undefined,
    });
    expect(initialState<Cmd>(cfg()).scratch).not.toBe(s.scratch);
    for (const t of [s.nextIndex, s.matchIndex, s.ackedSeq]) {
      expect(t).toBeInstanceOf(PeerTable);
      expect([...t]).toEqual([]);
      expect(t.size).toBe(0);
    }
  });

  it("a new leader tracks every peer but itself, cancels its election timer and arms its heartbeat", () => {
    const { s, fx } = leaderOf(cfg(), entries(1), 2);
    expect([...s.nextIndex]).toEqual([
      ["n2", 2],
      ["n3", 2],
    ]);
    expect([...s.matchIndex]).toEqual([
      ["n2", 0],
      ["n3", 0],
    ]);
    expect(fx.filter((e) => e.kind === "cancel-timer" || e.kind === "set-timer")).toEqual([
      { kind: "cancel-timer", timer: "election" },
      { kind: "set-timer", timer: "heartbeat", delayMs: 50 },
    ]);
  });

  it("noopOnElection: the new leader appends a no-op of its term; without it, nothing", () => {
    expect(leaderOf(cfg({ noopOnElection: true }), entries(1), 2).s.log).toEqual([...entries(1), { term: 2, cmd: null }]);
    expect(leaderOf(cfg(), entries(1), 2).s.log).toEqual(entries(1));
  });

  it("a message from itself is ignored, even of a newer term", () => {
    const s = boot(cfg(), { term: 1 });
    expect(msg(s, "n1", { type: "raft-vote", term: 7, lastLogIndex: 0, lastLogTerm: 0 })).toEqual([]);
    expect(s.term).toBe(1);
  });

  it("a newer-term vote request forgets the leader; a newer-term append names it", () => {
    const s = boot(cfg({ id: "n2" }), { term: 1 });
    msg(s, "n1", { type: "raft-append", term: 1, prevLogIndex: 0, prevLogTerm: 0, entries: [], leaderCommit: 0, seq: 1 });
    expect(s.leaderId).toBe("n1");
    msg(s, "n3", { type: "raft-vote", term: 2, lastLogIndex: 0, lastLogTerm: 0 });
    expect(s.leaderId).toBeUndefined();
  });
});

describe("candidates", () => {
  it("a candidate that stepped down on its term's AppendEntries does not count late votes", () => {
    const s = boot(cfg());
    feed(s, { type: "election-timeout" });
    msg(s, "n2", { type: "raft-append", term: 1, prevLogIndex: 0, prevLogTerm: 0, entries: [], leaderCommit: 0, seq: 1 });
    expect(s.role).toBe("follower");
    expect(msg(s, "n3", { type: "raft-vote-resp", term: 1, granted: true })).toEqual([]);
    expect(msg(s, "n2", { type: "raft-vote-resp", term: 1, granted: true })).toEqual([]);
    expect(s.role).toBe("follower"); // two late grants are a majority: counting them would make a second leader of term 1
  });

  it("a candidate answers a rival of its own term with a refusal", () => {
    const s = boot(cfg());
    feed(s, { type: "election-timeout" });
    expect(msg(s, "n2", { type: "raft-vote", term: 1, lastLogIndex: 9, lastLogTerm: 1 })).toEqual([
      { kind: "send", to: "n2", msg: { type: "raft-vote-resp", term: 1, granted: false } },
    ]);
  });
});

describe("leaders and stale messages", () => {
  it("a leader refuses a same-term vote request with an answer, and drops a late vote response", () => {
    const { s } = leaderOf(cfg(), [], 1);
    expect(msg(s, "n3", { type: "raft-vote", term: 1, lastLogIndex: 5, lastLogTerm: 1 })).toEqual([
      { kind: "send", to: "n3", msg: { type: "raft-vote-resp", term: 1, granted: false } },
    ]);
    expect(msg(s, "n3", { type: "raft-vote-resp", term: 1, granted: true })).toEqual([]);
    expect(s.ackedSeq.size).toBe(0);
  });

  it("with bug acceptStaleTermAppendEntries a leader takes a stale append and follows its sender; a stale vote is still refused", () => {
    const { s } = leaderOf(cfg({ rules: rulesWithBugs({ acceptStaleTermAppendEntries: true }) }), [], 3);
    const v = msg(s, "n3", { type: "raft-vote", term: 2, lastLogIndex: 9, lastLogTerm: 2 });
    expect(v.filter((e) => e.kind === "send")).toEqual([{ kind: "send", to: "n3", msg: { type: "raft-vote-resp", term: 3, granted: false } }]);
    expect(s.role).toBe("leader");
    msg(s, "n2", { type: "raft-append", term: 2, prevLogIndex: 0, prevLogTerm: 0, entries: entries(2), leaderCommit: 0, seq: 1 });
    expect(s).toMatchObject({ role: "follower", leaderId: "n2", log: entries(2) });
  });

  it("stepping down empties the pending reads", () => {
    const { s } = leaderOf(cfg(), [], 1);
    feed(s, { type: "read-index", id: 5 });
    msg(s, "n2", { type: "raft-vote-resp", term: 4, granted: false });
    expect(s.reads).toEqual([]);
  });
});

describe("follower commit and applies", () => {
  it("a delayed append with an older leaderCommit does not move commitIndex back", () => {
    const s = boot(cfg({ id: "n2" }), { term: 1 });
    msg(s, "n1", { type: "raft-append", term: 1, prevLogIndex: 0, prevLogTerm: 0, entries: entries(1, 1, 1), leaderCommit: 3, seq: 2 });
    expect(s.commitIndex).toBe(3);
    msg(s, "n1", { type: "raft-append", term: 1, prevLogIndex: 0, prevLogTerm: 0, entries: entries(1), leaderCommit: 1, seq: 1 });
    expect(s.commitIndex).toBe(3);
  });

  it("a follower's applies carry no proposal id", () => {
    const s = boot(cfg({ id: "n2" }), { term: 1 });
    const fx = msg(s, "n1", { type: "raft-append", term: 1, prevLogIndex: 0, prevLogTerm: 0, entries: entries(1), leaderCommit: 1, seq: 1 });
    expect(fx.filter((e) => e.kind === "apply")).toStrictEqual([{ kind: "apply", index: 1, term: 1, cmd: "c1" }]);
  });
});

describe("leader bookkeeping on responses", () => {
  it("a delayed response never lowers ackedSeq or matchIndex", () => {
    const { s } = leaderOf(cfg(), entries(1, 1, 1), 2);
    msg(s, "n2", resp(2, { matchIndex: 3, seq: 5 }));
    msg(s, "n2", resp(2, { matchIndex: 1, seq: 2 }));
    expect(s.ackedSeq.get("n2")).toBe(5);
    expect(s.matchIndex.get("n2")).toBe(3);
  });

  it("a success above nextIndex (after a backup) raises nextIndex past the match", () => {
    const { s } = leaderOf(cfg(), entries(1, 1, 1, 1, 1), 2);
    s.nextIndex.set("n2", 2);
    // The follower holds everything: nothing is (re)sent.
    expect(appendsTo(msg(s, "n2", resp(2, { matchIndex: 5, seq: 1 })), "n2")).toEqual([]);
    expect(s.nextIndex.get("n2")).toBe(6);
  });

  it("a success below an optimistic nextIndex (entries in flight) neither lowers it nor resends", () => {
    const { s } = leaderOf(cfg(), entries(1, 1, 1, 1, 1, 1, 1, 1), 2);
    expect(s.nextIndex.get("n2")).toBe(9);
    expect(appendsTo(msg(s, "n2", resp(2, { matchIndex: 5, seq: 1 })), "n2")).toEqual([]);
    expect(s.nextIndex.get("n2")).toBe(9);
  });

  it("fast backup to the end of the conflicting term when the leader has it", () => {
    const { s } = leaderOf(cfg(), entries(1, 2, 2, 2, 5), 6);
    const fx = msg(s, "n2", resp(6, { success: false, conflictTerm: 2, conflictIndex: 2, seq: 1 }));
    expect(appendsTo(fx, "n2").map((m) => m.prevLogIndex)).toEqual([4]);
    expect(s.nextIndex.get("n2")).toBe(6);
  });

  it("fast backup to the follower's log end; never past the leader's end nor below the match", () => {
    const { s } = leaderOf(cfg(), entries(1, 1, 1, 1), 2);
    const fx = msg(s, "n2", resp(2, { success: false, conflictTerm: 0, conflictIndex: 3, seq: 1 }));
    expect(appendsTo(fx, "n2").map((m) => m.prevLogIndex)).toEqual([2]);
    msg(s, "n3", resp(2, { matchIndex: 3, seq: 1 }));
    s.nextIndex.set("n3", 5);
    const low = msg(s, "n3", resp(2, { success: false, conflictTerm: 0, conflictIndex: 1, seq: 1 }));
    expect(appendsTo(low, "n3").map((m) => m.prevLogIndex)).toEqual([3]);
    const { s: l2 } = leaderOf(cfg(), entries(1, 1), 2);
    l2.nextIndex.set("n2", 9);
    const far = msg(l2, "n2", resp(2, { success: false, conflictTerm: 0, conflictIndex: 7, seq: 1 }));
    expect(appendsTo(far, "n2").map((m) => m.prevLogIndex)).toEqual([2]);
  });

  it("a stale rejection that would move nextIndex forward is ignored", () => {
    const { s } = leaderOf(cfg(), entries(1, 1, 1, 1), 2);
    s.nextIndex.set("n2", 2);
    expect(appendsTo(msg(s, "n2", resp(2, { success: false, conflictTerm: 0, conflictIndex: 2, seq: 1 })), "n2")).toEqual([]);
    expect(appendsTo(msg(s, "n2", resp(2, { success: false, conflictTerm: 0, conflictIndex: 4, seq: 1 })), "n2")).toEqual([]);
    expect(s.nextIndex.get("n2")).toBe(2);
  });
});

describe("client inputs", () => {
  it("a follower answers propose and read-index with not-leader", () => {
    const s = boot(cfg());
    expect(feed(s, { type: "propose", id: 1, cmd: "x" })).toStrictEqual([{ kind: "reply", id: 1, result: { ok: false, error: "not-leader" } }]);
    expect(feed(s, { type: "read-index", id: 2 })).toStrictEqual([{ kind: "reply", id: 2, result: { ok: false, error: "not-leader" } }]);
    expect(s.log).toEqual([]);
  });

  it("a proposal goes at once to caught-up followers only", () => {
    const { s } = leaderOf(cfg(), entries(1), 2);
    s.nextIndex.set("n3", 1); // lagging: mid catch-up
    const fx = feed(s, { type: "propose", id: 1, cmd: "p" });
    expect(appendsTo(fx, "n2").map((m) => m.entries)).toEqual([[{ term: 2, cmd: "p" }]]);
    expect(appendsTo(fx, "n3")).toEqual([]);
    expect(appendsTo(fx, "n1")).toEqual([]);
  });

  it("two reads before the leader commits in its term append one no-op", () => {
    const { s } = leaderOf(cfg(), entries(1), 2);
    feed(s, { type: "read-index", id: 1 });
    feed(s, { type: "read-index", id: 2 });
    expect(s.log.map((e) => e.cmd)).toEqual(["c1", null]);
  });

  it("a read waits for the commit of the leader's term and a majority's ack of a round after it", () => {
    const { s } = leaderOf(cfg(), entries(1), 2);
    const fx = feed(s, { type: "read-index", id: 7 });
    const seq = appendsTo(fx, "n2")[0]!.seq;
    expect(s.reads).toEqual([{ id: 7, seq, index: undefined }]);
    // An ack of the round without the no-op: leadership confirmed, but nothing of term 2 committed.
    expect(msg(s, "n2", resp(2, { matchIndex: 1, seq })).some((e) => e.kind === "reply")).toBe(false);
    expect(s.reads[0]!.index).toBeUndefined();
    const done = msg(s, "n3", resp(2, { matchIndex: 2, seq }));
    expect(done.filter((e) => e.kind === "reply")).toEqual([{ kind: "reply", id: 7, result: { ok: true } }]);
  });

  it("a read after a commit in the leader's term takes the commit index at once and needs only the acks", () => {
    const { s } = leaderOf(cfg(), entries(1), 2);
    feed(s, { type: "propose", id: 1, cmd: "p" });
    msg(s, "n2", resp(2, { matchIndex: 2, seq: 1 }));
    expect(s.commitIndex).toBe(2);
    const fx = feed(s, { type: "read-index", id: 8 });
    expect(s.log).toHaveLength(2); // no no-op needed
    expect(s.reads).toEqual([{ id: 8, seq: s.seq, index: 2 }]);
    expect(fx.some((e) => e.kind === "reply")).toBe(false);
    const stale = msg(s, "n3", resp(2, { matchIndex: 2, seq: s.seq - 1 }));
    expect(stale.some((e) => e.kind === "reply")).toBe(false);
    expect(msg(s, "n3", resp(2, { matchIndex: 2, seq: s.seq })).filter((e) => e.kind === "reply")).toEqual([{ kind: "reply", id: 8, result: { ok: true } }]);
  });
});

describe("log arithmetic edges", () => {
  it("lastIndexOfTerm finds index 1", () => {
    expect(lastIndexOfTerm(entries(1, 2), 1)).toBe(1);
  });
});
