import { describe, expect, it } from "vitest";
import { Simulation, type ProcessContext } from "../../sim/simulation.js";
import { createRaftNode, readPersisted } from "../../services/raft/node.js";
import type { RaftHost, RaftNodeOptions } from "../../services/raft/api.js";

/**
 * The adapter that runs the pure Raft core in the simulator (services/raft/node.ts): what
 * it writes to the disk and reads back on a restart, its timers (one per name), the
 * callbacks of proposals and read barriers, no-ops kept from the service, re-entrant
 * proposals from an apply callback. Small clusters in a bare Simulation, 1 ms links.
 */
interface Node {
  ctx: ProcessContext;
  host: RaftHost<string>;
  applied: Array<{ cmd: string; index: number; term: number }>;
  /** Indexes whose apply said a proposal of this node awaited the result. */
  awaited: number[];
}

function cluster(n: number, extra: Partial<RaftNodeOptions<string>> = {}, onApply?: (node: Node, cmd: string) => void) {
  const sim = new Simulation({ seed: "node", network: { latencyUsBase: 1000, latencyUsJitter: 0 } });
  const ids = Array.from({ length: n }, (_, i) => `s${i + 1}`);
  const nodes = new Map<string, Node>();
  for (const id of ids) {
    sim.addProcess(id, "server", {}, (ctx, restarted) => {
      const node: Node = { ctx, host: undefined as unknown as RaftHost<string>, applied: [], awaited: [] };
      node.host = createRaftNode<string>(
        ctx,
        {
          peers: ids,
          // s1 times out first and leads; the others wait long enough not to compete.
          electionTimeoutMsMin: id === "s1" ? 50 : 150,
          electionTimeoutMsMax: id === "s1" ? 50 : 300,
          heartbeatIntervalMs: 20,
          ...extra,
          apply: (cmd, at) => {
            node.applied.push({ cmd, index: at.index, term: at.term });
            if (at.awaited) node.awaited.push(at.index);
            onApply?.(node, cmd);
            return `applied:${cmd}`;
          },
        },
        restarted,
      );
      nodes.set(id, node);
      return { onMessage: (from, msg) => node.host.handleRaftMessage(from, msg) };
    });
  }
  const runMs = (ms: number) => sim.run(sim.nowUs + ms * 1000);
  return { sim, ids, node: (id: string) => nodes.get(id)!, runMs };
}

describe("readPersisted", () => {
  it("reads an empty disk as term 0, no vote, an empty log; and what was written under raft/term, raft/votedFor, raft/log", () => {
    expect(readPersisted(new Map())).toEqual({ term: 0, votedFor: null, log: [] });
    const disk = new Map<string, unknown>([
      ["raft/term", 3],
      ["raft/votedFor", "s2"],
      ["raft/log", [{ term: 1, cmd: "a" }]],
    ]);
    expect(readPersisted(disk)).toEqual({ term: 3, votedFor: "s2", log: [{ term: 1, cmd: "a" }] });
  });
});

describe("createRaftNode", () => {
  it("refuses a peer list without the node itself", () => {
    const sim = new Simulation({ seed: "x" });
    expect(() =>
      sim.addProcess("s9", "server", {}, (ctx) => {
        createRaftNode(ctx, { peers: ["s1", "s2"], electionTimeoutMsMin: 10, electionTimeoutMsMax: 20, heartbeatIntervalMs: 5, apply: () => undefined }, false);
        return {};
      }),
    ).toThrow("raft: peers s1,s2 do not include s9");
  });

  it("a single node elects itself at its election timeout, applies a proposal and answers with the service's result, index and term", () => {
    const c = cluster(1);
    c.runMs(49);
    expect(c.node("s1").host.isLeader()).toBe(false);
    c.runMs(2);
    const h = c.node("s1").host;
    expect(h.isLeader()).toBe(true);
    expect(h.leaderId()).toBe("s1");
    expect(h.currentTerm()).toBe(1);
    const answers: unknown[] = [];
    h.propose<string>("a", (r) => answers.push(r));
    h.propose<string>("b", (r) => answers.push(r));
    c.runMs(5);
    expect(answers).toEqual([
      { ok: true, result: "applied:a", index: 1, term: 1 },
      { ok: true, result: "applied:b", index: 2, term: 1 },
    ]);
    expect(c.node("s1").applied).toEqual([
      { cmd: "a", index: 1, term: 1 },
      { cmd: "b", index: 2, term: 1 },
    ]);
  });

  it("writes term, vote and log to the disk, and a restarted node starts from them", () => {
    const c = cluster(3);
    c.runMs(100);
    const leader = c.node("s1").host;
    expect(leader.isLeader()).toBe(true);
    leader.propose("a", () => {});
    leader.propose("b", () => {});
    c.runMs(50);
    for (const id of c.ids) {
      const disk = c.node(id).ctx.disk;
      expect(disk.get("raft/term"), id).toBe(1);
      expect(disk.get("raft/votedFor"), id).toBe("s1");
      expect(disk.get("raft/log"), id).toEqual([
        { term: 1, cmd: "a" },
        { term: 1, cmd: "b" },
      ]);
    }
    c.sim.restart("s3");
    const s3 = c.node("s3");
    // A new incarnation: state machine empty, term and log from the disk.
    expect(s3.applied).toEqual([]);
    expect(s3.host.currentTerm()).toBe(1);
    c.runMs(50);
    // Committed entries are re-applied from index 1 once it learns the commit index.
    expect(s3.applied.map((a) => a.cmd)).toEqual(["a", "b"]);
    expect(s3.host.leaderId()).toBe("s1");
  });

  it("truncates the disk's log where a new leader overwrites a stranded leader's entries", () => {
    const c = cluster(3);
    c.runMs(100);
    const s1 = c.node("s1").host;
    s1.propose("a", () => {});
    c.runMs(20);
    // s1 is cut off and appends two entries nobody else gets.
    for (const p of ["s2", "s3"]) {
      c.sim.network.cutLink("s1", p);
      c.sim.network.cutLink(p, "s1");
    }
    const lost: unknown[] = [];
    s1.propose("x", (r) => lost.push(r));
    s1.propose("y", (r) => lost.push(r));
    c.runMs(5);
    expect(c.node("s1").ctx.disk.get("raft/log")).toHaveLength(3);
    c.runMs(1000);
    const next = ["s2", "s3"].find((p) => c.node(p).host.isLeader())!;
    expect(next).toBeDefined();
    c.node(next).host.propose("z", () => {});
    c.runMs(50);
    c.sim.network.healAll();
    c.runMs(500);
    const logOf = (id: string) => (c.node(id).ctx.disk.get("raft/log") as Array<{ cmd: string | null }>).map((e) => e.cmd);
    expect(logOf("s1")).toEqual(logOf(next));
    expect(logOf("s1")).not.toContain("x");
    expect(logOf("s1")).toContain("z");
    // The stranded proposals were answered as failed, once each.
    expect(lost).toHaveLength(2);
    for (const r of lost) expect(r).toMatchObject({ ok: false });
  });

  it("keeps one timer per name: a healthy 3-node cluster stays in term 1 for 5 s, with heartbeats every 20 ms", () => {
    const c = cluster(3);
    c.runMs(100);
    const sentBefore = c.sim.network.stats.sent;
    c.runMs(5000);
    for (const id of c.ids) expect(c.node(id).host.currentTerm(), id).toBe(1);
    expect(c.node("s1").host.isLeader()).toBe(true);
    // About 250 heartbeat rounds of 2 appends and 2 replies; a duplicated timer would double it.
    const sent = c.sim.network.stats.sent - sentBefore;
    expect(sent).toBeGreaterThan(900);
    expect(sent).toBeLessThan(1100);
  });

  it("a follower refuses a proposal and a read barrier as not-leader; the leader confirms a barrier", () => {
    const c = cluster(3);
    c.runMs(100);
    const answers: unknown[] = [];
    c.node("s2").host.propose("a", (r) => answers.push(r));
    c.node("s2").host.readBarrier((r) => answers.push(r));
    c.node("s1").host.readBarrier((r) => answers.push(r));
    c.runMs(50);
    expect(answers).toEqual([{ ok: false, error: "not-leader" }, { ok: false, error: "not-leader" }, { ok: true }]);
    expect(c.node("s2").host.leaderId()).toBe("s1");
  });

  it("with noopOnElection, the no-op is never passed to the service: the first command is at index 2", () => {
    const c = cluster(1, { noopOnElection: true });
    c.runMs(60);
    const answers: unknown[] = [];
    c.node("s1").host.propose("a", (r) => answers.push(r));
    c.runMs(5);
    expect(c.node("s1").applied).toEqual([{ cmd: "a", index: 2, term: 1 }]);
    expect(answers).toEqual([{ ok: true, result: "applied:a", index: 2, term: 1 }]);
  });

  it("a proposal made from inside an apply is stepped after it: applies stay in log order and every callback runs once", () => {
    const answers: Array<[string, number]> = [];
    const c = cluster(1, {}, (node, cmd) => {
      if (cmd === "a") node.host.propose<string>("b", (r) => answers.push(["b", r.ok ? r.index : -1]));
    });
    c.runMs(60);
    c.node("s1").host.propose<string>("a", (r) => answers.push(["a", r.ok ? r.index : -1]));
    c.runMs(5);
    expect(c.node("s1").applied.map((a) => [a.cmd, a.index])).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
    expect(answers).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
  });

  it("tells the service a result is awaited only on the proposer, and not when a restarted node applies its log again", () => {
    const c = cluster(3);
    c.runMs(100);
    c.node("s1").host.propose("a", () => undefined);
    c.node("s1").host.propose("b", () => undefined);
    c.runMs(100);
    expect(c.ids.map((id) => c.node(id).applied.map((a) => a.index))).toEqual([
      [1, 2],
      [1, 2],
      [1, 2],
    ]);
    expect(c.ids.map((id) => c.node(id).awaited)).toEqual([[1, 2], [], []]);
    c.sim.restart("s1");
    c.runMs(400);
    // s1 (the shortest timeout) leads again and commits an entry of its new term: it
    // applies 1 and 2 again, which no proposal of this incarnation awaits, then its own 3.
    expect(c.node("s1").host.isLeader()).toBe(true);
    c.node("s1").host.propose("c", () => undefined);
    c.runMs(100);
    expect(c.node("s1").applied.map((a) => a.index)).toEqual([1, 2, 3]);
    expect(c.node("s1").awaited).toEqual([3]);
    expect(c.node("s2").awaited).toEqual([]);
  });

  it("ignores messages that are not Raft's", () => {
    const c = cluster(1);
    c.runMs(60);
    const h = c.node("s1").host;
    h.handleRaftMessage("s9", { type: "zk-request" });
    h.handleRaftMessage("s9", { type: 7 } as unknown as { type: string });
    expect(h.isLeader()).toBe(true);
    expect(h.currentTerm()).toBe(1);
  });
});
