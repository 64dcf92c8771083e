import { describe, expect, it } from "vitest";
import { step } from "../../services/raft/core/step.js";
import type { AppendRequest, AppendResponse, RaftEffect, RaftInput, RaftState } from "../../services/raft/core/types.js";
import { boot, cfg, type Cmd } from "./core-fixture.js";

/**
 * ReadIndex batching (etcd's): one read round in flight at a time; reads that arrive
 * meanwhile share the next round. Both sides: fewer rounds, and still linearizable
 * (a read is answered only once a majority acknowledges a round that started after it
 * arrived). A 5-server leader of term 2 that has committed an entry of its term, so
 * reads need only the acknowledgements.
 */
const PEERS = ["n1", "n2", "n3", "n4", "n5"];

function leader(): RaftState<Cmd> {
  const s = boot(cfg({ peers: PEERS }), { term: 1 }).s;
  step(s, { type: "election-timeout" });
  for (const p of ["n2", "n3"]) step(s, { type: "message", from: p, msg: { type: "raft-vote-resp", term: 2, granted: true } });
  expect(s.role).toBe("leader");
  step(s, { type: "propose", id: 100, cmd: "x" });
  for (const p of ["n2", "n3"]) ack(s, p, s.seq);
  expect(s.commitIndex).toBe(1);
  return s;
}

const feed = (s: RaftState<Cmd>, i: RaftInput<Cmd>): RaftEffect<Cmd>[] => step(s, i).effects;
const read = (s: RaftState<Cmd>, id: number) => feed(s, { type: "read-index", id });
const resp = (seq: number): AppendResponse => ({ type: "raft-append-resp", term: 2, success: true, matchIndex: 1, conflictTerm: 0, conflictIndex: 0, seq });
const ack = (s: RaftState<Cmd>, from: string, seq: number) => feed(s, { type: "message", from, msg: resp(seq) });
/** Seqs of the heartbeat rounds these effects start (one per broadcast, not per follower). */
const rounds = (fx: RaftEffect<Cmd>[]) => [
  ...new Set(fx.flatMap((e) => (e.kind === "send" && e.msg.type === "raft-append" ? [(e.msg as AppendRequest<Cmd>).seq] : []))),
];
const replies = (fx: RaftEffect<Cmd>[]) => fx.flatMap((e) => (e.kind === "reply" && e.result.ok ? [e.id] : []));

describe("ReadIndex batching", () => {
  it("reads that arrive while a read round is in flight start no round of their own, and share the next one", () => {
    const s = leader();
    const first = read(s, 1);
    const r1 = s.seq;
    expect(rounds(first)).toEqual([r1]);
    expect(rounds(read(s, 2))).toEqual([]);
    expect(rounds(read(s, 3))).toEqual([]);
    // Round r1 acknowledged by a majority: read 1 is answered, and reads 2 and 3 start one round.
    ack(s, "n2", r1);
    const done = ack(s, "n3", r1);
    expect(replies(done)).toEqual([1]);
    expect(rounds(done)).toEqual([r1 + 1]);
    ack(s, "n4", r1 + 1);
    expect(replies(ack(s, "n5", r1 + 1))).toEqual([2, 3]);
    expect(s.reads).toEqual([]);
  });

  it("a queued read is never answered by acknowledgements of the round that started before it arrived", () => {
    const s = leader();
    read(s, 1);
    const r1 = s.seq;
    read(s, 2);
    // Every follower acknowledges round r1: read 1 is done, read 2 is not.
    const fx = ["n2", "n3", "n4", "n5"].flatMap((p) => ack(s, p, r1));
    expect(replies(fx)).toEqual([1]);
    expect(s.reads.map((r) => r.id)).toEqual([2]);
    // One acknowledgement of the next round is not a majority either.
    expect(replies(ack(s, "n2", r1 + 1))).toEqual([]);
    expect(replies(ack(s, "n3", r1 + 1))).toEqual([2]);
  });

  it("a heartbeat round that starts after a queued read serves it, and no extra round follows", () => {
    const s = leader();
    read(s, 1);
    const r1 = s.seq;
    read(s, 2);
    expect(rounds(feed(s, { type: "heartbeat-timeout" }))).toEqual([r1 + 1]);
    ack(s, "n2", r1 + 1);
    // A majority's ack of the heartbeat round covers both reads (later rounds vouch for earlier ones).
    expect(replies(ack(s, "n3", r1 + 1))).toEqual([1, 2]);
    // Late acks of r1 start nothing: no read is waiting.
    expect(rounds(ack(s, "n4", r1))).toEqual([]);
  });

  it("a read after the round in flight was acknowledged starts a round at once", () => {
    const s = leader();
    read(s, 1);
    const r1 = s.seq;
    ack(s, "n2", r1);
    ack(s, "n3", r1);
    expect(rounds(read(s, 2))).toEqual([r1 + 1]);
  });
});
