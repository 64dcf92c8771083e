import { describe, expect, it } from "vitest";
import { Simulation, type ProcessContext } from "../../sim/simulation.js";
import { createRaftNode, readPersisted } from "../../services/raft/node.js";
import type { RaftHost } from "../../services/raft/api.js";
import { initialState, step } from "../../services/raft/core/step.js";
import type { AppendRequest, AppendResponse, Entry, RaftEffect, RaftState } from "../../services/raft/core/types.js";
import { boot, cfg, type Cmd } from "./core-fixture.js";

/**
 * Log compaction (Raft §7, without InstallSnapshot): a server drops the log its
 * service's snapshot covers once every server is known to hold it (compactIndex, the
 * leader's lowest match and commit, passed on in AppendEntries); a restarted server
 * restores the snapshot and re-applies only what follows. So a long run keeps a bounded
 * log, and no server ever needs from another an entry that was dropped.
 */

/** A server restarted from a disk holding a snapshot through `snapshotIndex` and the entries after it. */
function bootFromSnapshot(term: number, log: Entry<Cmd>[], snapshotIndex: number, snapshotTerm: number): { s: RaftState<Cmd> } {
  return { s: step(initialState<Cmd>(cfg()), { type: "restart", persisted: { term, votedFor: null, log, snapshotIndex, snapshotTerm } }).state };
}

const entries = (...terms: number[]): Entry<Cmd>[] => terms.map((term, i) => ({ term, cmd: `c${i + 1}` }));
const sends = (fx: RaftEffect<Cmd>[]) => fx.flatMap((e) => (e.kind === "send" ? [{ to: e.to, msg: e.msg }] : []));

function append(s: RaftState<Cmd>, m: Omit<AppendRequest<Cmd>, "type" | "seq">): { s: RaftState<Cmd>; resp: AppendResponse; fx: RaftEffect<Cmd>[] } {
  const r = step(s, { type: "message", from: "n2", msg: { type: "raft-append", seq: 1, ...m } });
  return { s: r.state, resp: sends(r.effects)[0]!.msg as AppendResponse, fx: r.effects };
}

describe("the core: compact, and appends around a snapshot", () => {
  it("drops the entries through the index only when every server holds them and they are applied", () => {
    let { s } = boot(cfg(), { term: 2, log: entries(1, 1, 2, 2) });
    // Committed and applied through 3, every server known to hold through 2.
    ({ s } = append(s, { term: 2, prevLogIndex: 4, prevLogTerm: 2, entries: [], leaderCommit: 3, compactIndex: 2 }));
    expect([s.commitIndex, s.lastApplied, s.compactIndex]).toEqual([3, 3, 2]);
    for (const index of [3, 0]) {
      const r = step(s, { type: "compact", index });
      expect(r.effects, `index ${index}`).toEqual([]);
      expect(r.state.snapshotIndex).toBe(0);
    }
    const r = step(s, { type: "compact", index: 2 });
    expect(r.effects).toEqual([{ kind: "persist-snapshot", index: 2, term: 1 }]);
    expect([r.state.snapshotIndex, r.state.snapshotTerm, r.state.log]).toEqual([2, 1, entries(1, 1, 2, 2).slice(2)]);
  });

  it("a follower takes an append reaching below its snapshot: the committed entries there are skipped, the rest appended", () => {
    const { s } = bootFromSnapshot(2, entries(2, 2), 3, 1);
    expect([s.snapshotIndex, s.commitIndex, s.lastApplied, s.compactIndex]).toEqual([3, 3, 3, 3]);
    const { s: after, resp } = append(s, {
      term: 2,
      prevLogIndex: 2,
      prevLogTerm: 1,
      entries: [{ term: 1, cmd: "x3" }, ...entries(2, 2, 2)],
      leaderCommit: 6,
      compactIndex: 3,
    });
    expect(resp).toMatchObject({ success: true, matchIndex: 6 });
    expect(after.log.map((e) => e.term)).toEqual([2, 2, 2]);
    expect([after.commitIndex, after.lastApplied]).toEqual([6, 6]);
  });

  it("a leader's compactIndex is its lowest match, no further than its commit index, and goes out in AppendEntries", () => {
    let { s } = boot(cfg(), { term: 1, log: entries(1, 1, 1) });
    s = step(s, { type: "election-timeout" }).state;
    s = step(s, { type: "message", from: "n2", msg: { type: "raft-vote-resp", term: 2, granted: true } }).state;
    expect(s.role).toBe("leader");
    const ack = (from: string, matchIndex: number) =>
      (s = step(s, {
        type: "message",
        from,
        msg: { type: "raft-append-resp", term: 2, success: true, matchIndex, conflictTerm: 0, conflictIndex: 0, seq: 1 },
      }).state);
    s = step(s, { type: "propose", id: 1, cmd: "c4" }).state;
    ack("n2", 4);
    // n3 has not answered: nothing is known to be held by every server.
    expect([s.commitIndex, s.compactIndex]).toEqual([4, 0]);
    ack("n3", 2);
    expect(s.compactIndex).toBe(2);
    const hb = sends(step(s, { type: "heartbeat-timeout" }).effects).map((x) => x.msg as AppendRequest<Cmd>);
    expect(hb.map((m) => m.compactIndex)).toEqual([2, 2]);
  });

  it("never backs a follower off below its snapshot, and a restart resumes from it", () => {
    const { s } = bootFromSnapshot(3, entries(3), 5, 2);
    expect([s.term, s.snapshotIndex, s.commitIndex, s.log.length]).toEqual([3, 5, 5, 1]);
    const r = step(s, { type: "election-timeout" });
    expect(sends(r.effects).map((x) => x.msg)).toContainEqual({ type: "raft-vote", term: 4, lastLogIndex: 6, lastLogTerm: 3 });
  });
});

/** A service whose state machine is a running sum and count, with §7 snapshots. */
interface Summer {
  ctx: ProcessContext;
  host: RaftHost<number>;
  state: { sum: number; count: number; lastIndex: number };
  restored: number;
}

function cluster(n: number, snapshotEveryEntries: number) {
  const sim = new Simulation({ seed: "compaction", network: { latencyUsBase: 1000, latencyUsJitter: 300 } });
  const ids = Array.from({ length: n }, (_, i) => `s${i + 1}`);
  const nodes = new Map<string, Summer>();
  for (const id of ids) {
    sim.addProcess(id, "server", {}, (ctx) => {
      const node: Summer = { ctx, host: undefined as unknown as RaftHost<number>, state: { sum: 0, count: 0, lastIndex: 0 }, restored: 0 };
      node.host = createRaftNode<number>(
        ctx,
        {
          peers: ids,
          electionTimeoutMsMin: id === "s1" ? 50 : 150,
          electionTimeoutMsMax: id === "s1" ? 50 : 300,
          heartbeatIntervalMs: 20,
          snapshotEveryEntries,
          snapshot: () => ({ ...node.state }),
          restore: (copy) => {
            node.state = { ...(copy as Summer["state"]) };
            node.restored++;
          },
          apply: (cmd, at) => {
            if (at.index !== node.state.lastIndex + 1) throw new Error(`${id} applied ${at.index} after ${node.state.lastIndex}`);
            node.state = { sum: node.state.sum + cmd, count: node.state.count + 1, lastIndex: at.index };
          },
        },
        false,
      );
      nodes.set(id, node);
      return { onMessage: (from, msg) => node.host.handleRaftMessage(from, msg) };
    });
  }
  const node = (id: string) => nodes.get(id)!;
  const diskLog = (id: string) => readPersisted<number>(node(id).ctx.disk);
  /** Propose 1..count at the leader, `everyMs` apart. */
  const load = (from: number, count: number, everyMs: number) => {
    for (let k = 0; k < count; k++) {
      sim.run(sim.nowUs + everyMs * 1000);
      const leader = ids.map(node).find((x) => sim.process(x.ctx.id).state === "running" && x.host.isLeader());
      leader?.host.propose(from + k, () => {});
    }
    sim.run(sim.nowUs + 500_000);
  };
  return { sim, ids, node, diskLog, load };
}

describe("the adapter: snapshots, a bounded log, restarts", () => {
  it("keeps every server's log within a few snapshots' worth while the state machines agree", () => {
    const c = cluster(3, 16);
    c.sim.run(200_000);
    c.load(1, 400, 2);
    const sum = (400 * 401) / 2;
    for (const id of c.ids) {
      expect(c.node(id).state, id).toEqual({ sum, count: 400, lastIndex: 400 });
      const p = c.diskLog(id);
      expect(p.snapshotIndex, id).toBeGreaterThanOrEqual(400 - 3 * 16);
      expect(p.log.length, id).toBeLessThanOrEqual(3 * 16);
      expect((p.snapshotIndex ?? 0) + p.log.length, id).toBe(400);
    }
  });

  it("a restarted server restores the snapshot and applies only what follows", () => {
    const c = cluster(3, 16);
    c.sim.run(200_000);
    c.load(1, 100, 2);
    c.sim.crash("s3");
    c.load(101, 100, 2);
    c.sim.restart("s3");
    const s3 = c.node("s3");
    expect(s3.restored).toBe(1);
    const from = s3.state.lastIndex;
    expect(from).toBeGreaterThan(0);
    c.load(201, 50, 2);
    expect(s3.state).toEqual({ sum: (250 * 251) / 2, count: 250, lastIndex: 250 });
    expect(c.node("s1").state).toEqual(s3.state);
  });

  it("a server that is down holds back every other's compaction, and catches up by appends when it is back", () => {
    const c = cluster(3, 16);
    c.sim.run(200_000);
    c.load(1, 50, 2);
    c.sim.crash("s3");
    const held = c.diskLog("s1").snapshotIndex ?? 0;
    c.load(51, 200, 2);
    // The others could not drop what s3 (down since about index 50) has not got.
    for (const id of ["s1", "s2"]) {
      expect(c.diskLog(id).snapshotIndex ?? 0, id).toBeLessThanOrEqual(Math.max(held, 50));
      expect(c.diskLog(id).log.length, id).toBeGreaterThan(150);
    }
    c.sim.restart("s3");
    c.load(251, 50, 2);
    for (const id of c.ids) {
      expect(c.node(id).state, id).toEqual({ sum: (300 * 301) / 2, count: 300, lastIndex: 300 });
      expect(c.diskLog(id).log.length, id).toBeLessThanOrEqual(3 * 16);
    }
  });
});
