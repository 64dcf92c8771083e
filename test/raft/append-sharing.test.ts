import { describe, expect, it } from "vitest";
import { step } from "../../services/raft/core/step.js";
import type { AppendRequest, Entry, RaftEffect, RaftMessage, RaftState } from "../../services/raft/core/types.js";
import { boot, cfg, type Cmd } from "./core-fixture.js";

/**
 * A leader's AppendEntries to followers at the same point of its log is one message
 * object (nothing writes a message in flight); a follower elsewhere in the log, or a
 * send after the commit index moved, gets its own.
 */

const appendsOf = (fx: RaftEffect<Cmd>[]): Map<string, AppendRequest<Cmd>> =>
  new Map(fx.flatMap((e) => (e.kind === "send" && e.msg.type === "raft-append" ? [[e.to, e.msg] as [string, AppendRequest<Cmd>]] : [])));

function leader(log: Entry<Cmd>[], entriesPerAppendMax = 64): RaftState<Cmd> {
  const { s } = boot(cfg({ peers: ["n1", "n2", "n3", "n4"], entriesPerAppendMax }), { term: 1, log });
  step(s, { type: "election-timeout" });
  for (const p of ["n2", "n3"]) step(s, { type: "message", from: p, msg: { type: "raft-vote-resp", term: 2, granted: true } });
  expect(s.role).toBe("leader");
  return s;
}

const msg = (s: RaftState<Cmd>, from: string, m: RaftMessage<Cmd>) => step(s, { type: "message", from, msg: m }).effects;

describe("AppendEntries sharing", () => {
  it("followers at the same next index get one message object, equal to what each would get alone", () => {
    const s = leader([{ term: 1, cmd: "a" }]);
    const sent = appendsOf(step(s, { type: "heartbeat-timeout" }).effects);
    expect([...sent.keys()]).toEqual(["n2", "n3", "n4"]);
    expect(sent.get("n2")).toBe(sent.get("n3"));
    expect(sent.get("n3")).toBe(sent.get("n4"));
    expect(sent.get("n2")).toEqual({
      type: "raft-append",
      term: 2,
      prevLogIndex: 1,
      prevLogTerm: 1,
      entries: [],
      leaderCommit: 0,
      seq: sent.get("n2")!.seq,
      compactIndex: 0,
    });
  });

  it("a follower further back gets its own message with the entries it lacks", () => {
    // One entry per message, so n4 is still one behind when the heartbeat goes.
    const s = leader(
      [
        { term: 1, cmd: "a" },
        { term: 1, cmd: "b" },
      ],
      1,
    );
    // n4 rejects: its log is empty, so the leader backs it up to index 1 (and sends it "a").
    const seq = s.seq;
    msg(s, "n4", { type: "raft-append-resp", term: 2, success: false, matchIndex: 0, conflictTerm: 0, conflictIndex: 1, seq });
    const sent = appendsOf(step(s, { type: "heartbeat-timeout" }).effects);
    expect(sent.get("n2")).toBe(sent.get("n3"));
    expect(sent.get("n4")).not.toBe(sent.get("n2"));
    expect(sent.get("n4")).toMatchObject({ prevLogIndex: 1, entries: [{ term: 1, cmd: "b" }] });
    expect(sent.get("n2")).toMatchObject({ prevLogIndex: 2, entries: [] });
  });

  it("a message is not shared across steps", () => {
    const s = leader([]);
    const first = appendsOf(step(s, { type: "heartbeat-timeout" }).effects).get("n2");
    const second = appendsOf(step(s, { type: "heartbeat-timeout" }).effects).get("n2");
    expect(second).not.toBe(first);
    expect(second!.seq).toBe(first!.seq + 1);
  });
});
