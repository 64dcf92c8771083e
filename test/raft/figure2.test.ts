import { describe, expect, it } from "vitest";
import { step } from "../../services/raft/core/step.js";
import type { Entry, RaftEffect, RaftMessage, RaftState } from "../../services/raft/core/types.js";
import { createRaftNode } from "../../services/raft/node.js";
import type { RaftHost } from "../../services/raft/api.js";
import { Simulation, type Message, type ProcessContext } from "../../sim/simulation.js";
import { boot, cfg, type Cmd } from "./core-fixture.js";

/**
 * Two rules of Figure 2 that no simulated run breaks today, so only a direct test pins
 * them: a follower's commit index after AppendEntries is min(leaderCommit, index of the
 * last *new* entry), not its log's end; and the adapter (services/raft/node.ts) puts a
 * step's state on disk before any message of that step leaves ("Updated on stable
 * storage before responding to RPCs").
 */

const entries = (...terms: number[]): Entry<Cmd>[] => terms.map((term, i) => ({ term, cmd: `c${i + 1}` }));
const applied = (fx: RaftEffect<Cmd>[]) => fx.filter((e) => e.kind === "apply").map((e) => (e as { index: number }).index);

function append(s: RaftState<Cmd>, m: Omit<Extract<RaftMessage<Cmd>, { type: "raft-append" }>, "type" | "term" | "seq">) {
  return step(s, { type: "message", from: "n2", msg: { type: "raft-append", term: 3, seq: 1, ...m } }).effects;
}

describe("Figure 2: a follower's commit index is min(leaderCommit, index of the last new entry)", () => {
  // n1 holds entries 3 and 4 of a term-2 leader that never committed them; the term-3
  // leader n2 has verified only what its AppendEntries covers.
  const stale = () => boot(cfg(), { term: 2, log: entries(1, 1, 2, 2) }).s;

  it("a heartbeat matching at index 1 with leaderCommit 5 commits through 1, not the unverified 2..4", () => {
    const s = stale();
    expect(applied(append(s, { prevLogIndex: 1, prevLogTerm: 1, entries: [], leaderCommit: 5 }))).toEqual([1]);
    expect(s.commitIndex).toBe(1);
    expect(s.log.map((e) => e.term)).toEqual([1, 1, 2, 2]);
  });

  it("one entry at index 2 agreeing with ours commits through 2; the term-2 entries after it are neither cut nor applied", () => {
    const s = stale();
    expect(applied(append(s, { prevLogIndex: 1, prevLogTerm: 1, entries: [{ term: 1, cmd: "c2" }], leaderCommit: 5 }))).toEqual([1, 2]);
    expect(s.commitIndex).toBe(2);
    expect(s.log.map((e) => e.term)).toEqual([1, 1, 2, 2]);
  });

  it("leaderCommit below the last new entry bounds it instead; it never moves back", () => {
    const s = stale();
    expect(applied(append(s, { prevLogIndex: 0, prevLogTerm: 0, entries: entries(1, 1, 3), leaderCommit: 2 }))).toEqual([1, 2]);
    expect(s.commitIndex).toBe(2);
    expect(s.log.map((e) => e.term)).toEqual([1, 1, 3]);
    expect(applied(append(s, { prevLogIndex: 1, prevLogTerm: 1, entries: [], leaderCommit: 3 }))).toEqual([]);
    expect(s.commitIndex).toBe(2);
  });
});

/** What each server's disk held when each of its messages left. */
interface Sent {
  from: string;
  to: string;
  msg: RaftMessage<Cmd>;
  disk: { term: unknown; votedFor: unknown; log: Entry<Cmd>[] };
}

/** The context the node sees, with send recording the disk as the message leaves. */
function recording(ctx: ProcessContext, sent: Sent[]): ProcessContext {
  const send = (to: string, msg: Message): void => {
    const log = (ctx.disk.get("raft/log") as Entry<Cmd>[] | undefined) ?? [];
    sent.push({
      from: ctx.id,
      to,
      msg: msg as unknown as RaftMessage<Cmd>,
      disk: { term: ctx.disk.get("raft/term"), votedFor: ctx.disk.get("raft/votedFor"), log: [...log] },
    });
    ctx.send(to, msg);
  };
  return new Proxy(ctx, {
    get(target, key) {
      if (key === "send") return send;
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** `link` applied to every link between `one` and each of `others`, in both directions. */
function bothWays(one: string, others: string[], link: (from: string, to: string) => void): void {
  for (const other of others) {
    link(one, other);
    link(other, one);
  }
}

/** A 3-server cluster through an election, proposals, a leader cut off and replaced, a heal and a restart. */
function eventfulRun(): Sent[] {
  const sent: Sent[] = [];
  const sim = new Simulation({ seed: "figure2", network: { latencyUsBase: 1000, latencyUsJitter: 0 } });
  const ids = ["s1", "s2", "s3"];
  const hosts = new Map<string, RaftHost<string>>();
  for (const id of ids)
    sim.addProcess(id, "server", {}, (ctx, restarted) => {
      const host = createRaftNode<string>(
        recording(ctx, sent),
        {
          peers: ids,
          electionTimeoutMsMin: id === "s1" ? 50 : 150,
          electionTimeoutMsMax: id === "s1" ? 50 : 300,
          heartbeatIntervalMs: 20,
          apply: () => undefined,
        },
        restarted,
      );
      hosts.set(id, host);
      return { onMessage: (from, msg) => host.handleRaftMessage(from, msg) };
    });
  const runMs = (ms: number) => sim.run(sim.nowUs + ms * 1000);
  runMs(100);
  for (const cmd of ["a", "b"]) hosts.get("s1")!.propose(cmd, () => {});
  runMs(30);
  bothWays("s1", ["s2", "s3"], (a, b) => sim.network.cutLink(a, b));
  for (const cmd of ["x", "y"]) hosts.get("s1")!.propose(cmd, () => {});
  runMs(600);
  const leader = ids.find((id) => id !== "s1" && hosts.get(id)!.isLeader())!;
  hosts.get(leader)!.propose("c", () => {});
  runMs(30);
  bothWays("s1", ["s2", "s3"], (a, b) => sim.network.healLink(a, b));
  runMs(200);
  sim.restart("s3");
  hosts.get(leader)!.propose("d", () => {});
  runMs(300);
  return sent;
}

/** What a message promises that the sender's disk must already hold, or undefined. */
function unbacked({ from, to, msg, disk }: Sent): string | undefined {
  if (disk.term !== msg.term) return `term ${msg.term} sent with term ${String(disk.term)} on disk`;
  if (msg.type === "raft-vote" && disk.votedFor !== from) return `a vote request without its own vote on disk (${String(disk.votedFor)})`;
  if (msg.type === "raft-vote-resp" && msg.granted && disk.votedFor !== to) return `a vote for ${to} with ${String(disk.votedFor)} on disk`;
  if (msg.type === "raft-append-resp" && msg.success && disk.log.length < msg.matchIndex)
    return `match ${msg.matchIndex} acknowledged with ${disk.log.length} entries on disk`;
  if (msg.type === "raft-append") {
    const onDisk = disk.log.slice(msg.prevLogIndex, msg.prevLogIndex + msg.entries.length);
    if (JSON.stringify(onDisk) !== JSON.stringify(msg.entries))
      return `entries ${msg.prevLogIndex + 1}..${msg.prevLogIndex + msg.entries.length} sent before they were on disk`;
  }
  return undefined;
}

describe("RaftNode: no message leaves before the persist it depends on", () => {
  it("every vote, vote request, AppendEntries and acknowledgement of an eventful run is backed by the sender's disk as it leaves", () => {
    const sent = eventfulRun();
    const kinds = (pred: (s: Sent) => boolean) => sent.filter(pred).length;
    // The run exercised what the rule is about: new terms, granted votes, entries sent and acknowledged.
    expect(new Set(sent.map((s) => s.msg.term)).size).toBeGreaterThanOrEqual(2);
    expect(kinds((s) => s.msg.type === "raft-vote-resp" && s.msg.granted)).toBeGreaterThanOrEqual(2);
    expect(kinds((s) => s.msg.type === "raft-append" && s.msg.entries.length > 0)).toBeGreaterThanOrEqual(4);
    expect(kinds((s) => s.msg.type === "raft-append-resp" && s.msg.success && s.msg.matchIndex > 0)).toBeGreaterThanOrEqual(4);
    const bad = sent.flatMap((s) => {
      const why = unbacked(s);
      return why === undefined ? [] : [`${s.from}→${s.to} ${s.msg.type}: ${why}`];
    });
    expect(bad).toEqual([]);
  });
});
