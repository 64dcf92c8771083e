import { describe, expect, it } from "vitest";
import { Simulation, type Message, type ProcessContext } from "../../sim/simulation.js";
import type { Fiber } from "../../sim/fiber.js";
import { raftZk } from "../../designs/raft-zk/design.js";
import type { RaftZkOptions } from "../../designs/raft-zk/design.js";
import type { ZkServer } from "../../designs/raft-zk/server.js";
import { ZkClient } from "../../designs/raft-zk/client.js";
import { ZkLeaderElection } from "../../designs/raft-zk/lock.js";
import { sequenceOf } from "../../designs/raft-zk/tree.js";
import type { ZkOp, ZkReply } from "../../designs/raft-zk/protocol.js";

/**
 * ZkLeaderElection (designs/raft-zk/lock.ts) among candidate processes on a 3-server
 * Raft-ZK cluster: one leader at a time, succession in node order, each candidate
 * watching only its predecessor; and the protection-mode path, where a create whose
 * reply was lost is found again by its GUID instead of being made twice.
 */
const GROUP = "g";
const DIR = `/election/${GROUP}`;

interface Sent {
  atUs: number;
  from: string;
  to: string;
  msg: Message;
}

interface Term {
  process: string;
  path: string;
  token: number;
  startUs: number;
  endUs: number;
  endedBy: "resign" | "deposed" | "crash" | "end";
}

interface CandidatePlan {
  startMs: number;
  /** How long each leadership lasts before resigning (Infinity: until deposed). */
  leadMs: number;
  /** Campaigns to run. */
  rounds: number;
}

function cluster(plans: Record<string, CandidatePlan>, options: Record<string, unknown> = {}, seed = "election") {
  const sim = new Simulation({ seed, network: { latencyUsBase: 500, latencyUsJitter: 200 } });
  const o = raftZk.parseOptions(
    { nodes: 3, preferredLeader: "zk-1", sessionTimeoutMs: 1000, watchPollMs: 10_000, ...options },
    "test",
    "designOptions",
  ) as RaftZkOptions;
  const inst = raftZk.setup({ sim, processOptions: () => ({}) }, o);
  const server = (id: string) => sim.context(id).behavior as unknown as ZkServer;
  const leader = (): ZkServer | undefined => inst.serverIds.map(server).find((s) => s.raft.isLeader());

  // Every message, with the election directory as the leader saw it at send time.
  const sent: Array<Sent & { children?: Array<{ name: string; owner: string }> }> = [];
  const hooks: Array<(s: Sent) => void> = [];
  // sendOn is where every message goes out (a process's kept route and sim.send both end there).
  const sendOn = sim.sendOn.bind(sim);
  sim.sendOn = (from, dest, link, msg) => {
    const s = { atUs: sim.nowUs, from, to: dest.id, msg };
    for (const h of hooks) h(s);
    sent.push({ ...s, children: childrenNow() });
    sendOn(from, dest, link, msg);
  };
  function childrenNow(): Array<{ name: string; owner: string }> | undefined {
    const t = leader()?.tree;
    const kids = t?.getChildren(DIR);
    return kids?.map((name) => ({ name, owner: t!.get(`${DIR}/${name}`)!.data })).sort((a, b) => sequenceOf(a.name) - sequenceOf(b.name));
  }

  const terms: Term[] = [];
  const open = new Map<string, Term>();
  const end = (p: string, by: Term["endedBy"]) => {
    const t = open.get(p);
    if (!t) return;
    t.endUs = sim.nowUs;
    t.endedBy = by;
    open.delete(p);
  };

  function* candidate(ctx: ProcessContext, plan: CandidatePlan): Fiber<void> {
    yield* ctx.sleep(plan.startMs);
    const zk = new ZkClient(ctx, {
      servers: inst.serverIds,
      sessionTimeoutMs: o.sessionTimeoutMs,
      heartbeatIntervalMs: o.heartbeatIntervalMs,
      clockDriftMarginMs: o.clockDriftMarginMs,
      requestTimeoutMs: o.requestTimeoutMs,
    });
    const election = new ZkLeaderElection(zk, o.watchPollMs);
    for (let round = 0; round < plan.rounds; round++) {
      const r = yield* election.campaign(GROUP, 60_000);
      if (r.outcome !== "ok") {
        ctx.record("fail", "campaign", GROUP, { reason: r.reason });
        continue;
      }
      const t: Term = { process: ctx.id, path: r.grant.secret, token: r.grant.token!, startUs: ctx.sim.nowUs, endUs: Infinity, endedBy: "end" };
      terms.push(t);
      open.set(ctx.id, t);
      ctx.record("ok", "elected", GROUP, { path: t.path, token: t.token });
      // Lead, asking the library every 2 ms whether we still may (a late answer only lengthens the term).
      const untilUs = ctx.monoUs() + plan.leadMs * 1000;
      let deposed = false;
      while (ctx.monoUs() < untilUs) {
        if (!election.isLeader(r.grant)) {
          deposed = true;
          break;
        }
        yield* ctx.sleep(2);
      }
      if (deposed) {
        end(ctx.id, "deposed");
        ctx.record("info", "deposed", GROUP);
        continue;
      }
      end(ctx.id, "resign");
      ctx.record("invoke", "resign", GROUP);
      const rel = yield* election.resign(r.grant);
      ctx.record(rel.outcome === "ok" ? "ok" : "info", "resign", GROUP);
    }
  }

  for (const [id, plan] of Object.entries(plans)) {
    sim.addProcess(id, "client", {}, (ctx, restarted) => {
      if (!restarted) ctx.spawn(candidate(ctx, plan));
      return {};
    });
  }
  const crash = (id: string) => {
    end(id, "crash");
    sim.crash(id);
  };
  const runMs = (ms: number) => {
    sim.run(ms * 1000);
    for (const t of terms) if (t.endUs === Infinity) t.endUs = sim.nowUs;
  };
  const ev = (process: string, f: string, type?: string) =>
    sim.history.filter((e) => e.process === process && e.f === f && (type === undefined || e.type === type));
  return { sim, o, server, leader, sent, hooks, terms, crash, runMs, ev, childrenNow };
}

const opOf = (m: Message): ZkOp | undefined => (m.op as ZkOp | undefined) ?? undefined;

/** No two terms of different candidates overlap in true time. */
function expectOneLeaderAtATime(terms: Term[]): void {
  const sorted = [...terms].sort((a, b) => a.startUs - b.startUs);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const cur = sorted[i]!;
    expect(cur.startUs, `${cur.process} elected at ${cur.startUs} µs while ${prev.process} led until ${prev.endUs} µs`).toBeGreaterThanOrEqual(prev.endUs);
  }
}

/** Each watch a candidate set is on the node just before its own (no watch on the directory: no herd). */
function expectPredecessorWatchesOnly(sent: ReturnType<typeof cluster>["sent"], candidates: string[]): number {
  let watches = 0;
  for (const s of sent) {
    if (!candidates.includes(s.from)) continue;
    const op = opOf(s.msg);
    if (!op || !("watch" in op) || !op.watch) continue;
    expect(op.kind, `${s.from} set a ${op.kind} watch`).toBe("get");
    const kids = s.children!;
    const own = kids.find((k) => k.owner === s.from)!;
    expect(own, `${s.from} watches without a node of its own`).toBeDefined();
    const watched = op.path.slice(DIR.length + 1);
    expect(op.path.startsWith(`${DIR}/`)).toBe(true);
    // The predecessor may have gone between the read and the watch; nothing may sit between it and us.
    const between = kids.filter((k) => sequenceOf(k.name) > sequenceOf(watched) && sequenceOf(k.name) < sequenceOf(own.name));
    expect(sequenceOf(watched)).toBeLessThan(sequenceOf(own.name));
    expect(between, `${s.from} (node ${own.name}) watches ${watched}, skipping a nearer predecessor`).toEqual([]);
    watches++;
  }
  return watches;
}

describe("Raft-ZK leader election (ZkLeaderElection)", () => {
  it("no faults: one leader at a time, leadership passes in node order, each waiter watches only its predecessor", () => {
    const names = ["cand-1", "cand-2", "cand-3", "cand-4"];
    const w = cluster(Object.fromEntries(names.map((id, i) => [id, { startMs: 200 + 20 * i, leadMs: 150, rounds: 2 }])));
    w.runMs(5_000);
    expect(w.leader()).toBe(w.server("zk-1"));
    expect(w.terms).toHaveLength(8);
    expect(w.terms.every((t) => t.endedBy === "resign")).toBe(true);
    expectOneLeaderAtATime(w.terms);
    // Succession follows the sequence numbers, and the epoch (creation zxid) grows with it.
    const inOrder = [...w.terms].sort((a, b) => a.startUs - b.startUs);
    for (let i = 1; i < inOrder.length; i++) {
      expect(sequenceOf(inOrder[i]!.path)).toBeGreaterThan(sequenceOf(inOrder[i - 1]!.path));
      expect(inOrder[i]!.token).toBeGreaterThan(inOrder[i - 1]!.token);
    }
    // First round in start order, then again after each re-joined at the back of the queue.
    expect(inOrder.map((t) => t.process)).toEqual([...names, ...names]);
    // The successor is elected promptly after a resignation (a watch event, not the 10 s poll).
    for (let i = 1; i < inOrder.length; i++) expect(inOrder[i]!.startUs - inOrder[i - 1]!.endUs).toBeLessThan(50_000);
    expect(expectPredecessorWatchesOnly(w.sent, names)).toBeGreaterThanOrEqual(6);
    // No herd: each node's deletion woke at most one waiter.
    const woken = new Map<string, number>();
    const awaitRpc = new Map<string, string>(); // `${client}#${rpcId}` -> path
    for (const s of w.sent) {
      const op = opOf(s.msg);
      if (op?.kind === "awaitWatch") awaitRpc.set(`${s.from}#${s.msg.rpcId}`, op.path);
      const rep = s.msg as unknown as ZkReply & { inReplyTo?: number };
      if (rep.inReplyTo !== undefined && rep.status === "ok" && rep.event === "deleted") {
        const path = awaitRpc.get(`${s.to}#${rep.inReplyTo}`)!;
        woken.set(path, (woken.get(path) ?? 0) + 1);
      }
    }
    expect(woken.size).toBeGreaterThan(0);
    for (const [path, n] of woken) expect(n, path).toBe(1);
    expect(w.childrenNow()).toEqual([]);
  });

  it("the leader crashes: its session expires and the next-lowest candidate leads, then the next", () => {
    const names = ["cand-1", "cand-2", "cand-3"];
    const w = cluster(Object.fromEntries(names.map((id, i) => [id, { startMs: 200 + 20 * i, leadMs: Infinity, rounds: 1 }])));
    const crashAtUs: Record<string, number> = {};
    w.sim.onRecord((e) => {
      if (e.f === "elected" && e.process !== "cand-3") {
        w.sim.schedule(e.timeUs + 300_000, () => {
          crashAtUs[e.process] = w.sim.nowUs;
          w.crash(e.process);
        });
      }
    });
    w.runMs(6_000);
    expect(w.terms.map((t) => [t.process, t.endedBy])).toEqual([
      ["cand-1", "crash"],
      ["cand-2", "crash"],
      ["cand-3", "end"],
    ]);
    expectOneLeaderAtATime(w.terms);
    const T = w.o.sessionTimeoutMs * 1000;
    for (const [dead, next] of [
      ["cand-1", 1],
      ["cand-2", 2],
    ] as const) {
      const waitedUs = w.terms[next]!.startUs - crashAtUs[dead]!;
      // Not before the service expired the silent session (last ping at most one interval before the crash) ...
      expect(waitedUs).toBeGreaterThanOrEqual(T - w.o.heartbeatIntervalMs * 1000);
      // ... and soon after: the expiry tick, the commit, the watch event.
      expect(waitedUs).toBeLessThan(T + 300_000);
    }
    const kids = w.childrenNow()!;
    expect(kids.map((k) => k.owner)).toEqual(["cand-3"]);
  });

  it("the leader is cut off from the service: it stops believing before its session expires, and the next-lowest leads", () => {
    // cand-1 campaigns again after it is deposed; while still cut off, that campaign fails (its old session has expired), the next one succeeds.
    const w = cluster({
      "cand-1": { startMs: 200, leadMs: Infinity, rounds: 3 },
      "cand-2": { startMs: 220, leadMs: Infinity, rounds: 1 },
      "cand-3": { startMs: 240, leadMs: Infinity, rounds: 1 },
    });
    let cutAtUs = 0;
    w.sim.onRecord((e) => {
      if (e.f === "elected" && e.process === "cand-1" && cutAtUs === 0) {
        w.sim.schedule(e.timeUs + 300_000, () => {
          cutAtUs = w.sim.nowUs;
          for (const s of ["zk-1", "zk-2", "zk-3"]) {
            w.sim.network.cutLink("cand-1", s);
            w.sim.network.cutLink(s, "cand-1");
          }
        });
        w.sim.schedule(e.timeUs + 3_000_000, () => {
          for (const s of ["zk-1", "zk-2", "zk-3"]) {
            w.sim.network.healLink("cand-1", s);
            w.sim.network.healLink(s, "cand-1");
          }
        });
      }
    });
    w.runMs(6_000);
    expectOneLeaderAtATime(w.terms);
    const [first, second] = [...w.terms].sort((a, b) => a.startUs - b.startUs);
    expect(first!.process).toBe("cand-1");
    expect(first!.endedBy).toBe("deposed");
    expect(second!.process).toBe("cand-2");
    // The client gave up within T − margin of its last contact, before the service expired it.
    expect(first!.endUs - cutAtUs).toBeLessThanOrEqual((w.o.sessionTimeoutMs - w.o.clockDriftMarginMs) * 1000 + 5_000);
    expect(second!.startUs).toBeGreaterThan(first!.endUs);
    // Back in touch, cand-1 campaigns again with a new session and queues behind cand-3.
    const kids = w.childrenNow()!;
    expect(kids.map((k) => k.owner)).toEqual(["cand-2", "cand-3", "cand-1"]);
  });
});

describe("Raft-ZK protection mode: a create whose reply was lost", () => {
  /**
   * cand-2 leads first. cand-1's create reaches the leader and is applied, but the
   * leader→cand-1 link is cut as it is sent, so the reply is dropped; the request times
   * out (unknown outcome). The recipe looks for its GUID among the children instead of
   * creating again, waits behind cand-2, leads, resigns, and cand-3 follows at once: no
   * orphan node of cand-1's session is left to block the queue.
   */
  function lostCreate(seed: string) {
    const w = cluster(
      {
        "cand-2": { startMs: 200, leadMs: 400, rounds: 1 },
        "cand-1": { startMs: 250, leadMs: 150, rounds: 1 },
        "cand-3": { startMs: 300, leadMs: 150, rounds: 1 },
      },
      {},
      seed,
    );
    let lost: Sent | undefined;
    w.hooks.push((s) => {
      const op = opOf(s.msg);
      if (lost || s.from !== "cand-1" || op?.kind !== "create" || w.leader() !== w.server(s.to)) return;
      lost = s;
      w.sim.network.cutLink(s.to, s.from);
      w.sim.schedule(w.sim.nowUs + 150_000, () => w.sim.network.healLink(s.to, s.from));
    });
    w.runMs(3_000);
    return { ...w, lost: () => lost };
  }

  it("finds its node by GUID, makes no second node, and the next candidate is not blocked", () => {
    const w = lostCreate("lost-create");
    const lost = w.lost();
    expect(lost, "the create was never sent to the leader").toBeDefined();
    const createdPath = (() => {
      // The create was applied: the leader's reply to it was sent into the cut link.
      const rep = w.sent.find((s) => s.from === lost!.to && s.to === "cand-1" && s.msg.inReplyTo === lost!.msg.rpcId);
      expect(rep, "no reply to the lost create").toBeDefined();
      expect((rep!.msg as unknown as ZkReply).status).toBe("ok");
      return (rep!.msg as unknown as { path: string }).path;
    })();
    expect(w.sim.network.stats.cutDropped).toBeGreaterThan(0);
    // Only one create by cand-1 reached the leader; cand-1 then looked for its GUID.
    const creates = w.sent.filter((s) => s.from === "cand-1" && opOf(s.msg)?.kind === "create" && w.server(s.to) === w.server("zk-1"));
    expect(creates).toHaveLength(1);
    const guidPrefix = createdPath.slice(DIR.length + 1).replace(/\d{10}$/, "");
    expect(guidPrefix).toMatch(/^_c_[0-9a-f]+-lock-$/);
    // cand-1 led under the node the lost create made.
    const order = [...w.terms].sort((a, b) => a.startUs - b.startUs);
    expect(order.map((t) => t.process)).toEqual(["cand-2", "cand-1", "cand-3"]);
    expect(order[1]!.path).toBe(createdPath);
    expectOneLeaderAtATime(w.terms);
    // While cand-1 waited, the directory held exactly one node of its session.
    for (const s of w.sent) {
      const mine = s.children?.filter((k) => k.owner === "cand-1") ?? [];
      expect(mine.length).toBeLessThanOrEqual(1);
    }
    // cand-3 followed cand-1's resignation at once, well inside cand-1's still-live session.
    expect(order[2]!.startUs - order[1]!.endUs).toBeLessThan(50_000);
    expect(w.server("zk-1").tree.sessions.size).toBe(3);
    expect(w.childrenNow()).toEqual([]);
  });

  it("works whatever the seed", () => {
    for (const seed of ["a", "b", "c", "d", "e"]) {
      const w = lostCreate(seed);
      expect(w.lost(), seed).toBeDefined();
      const order = [...w.terms].sort((a, b) => a.startUs - b.startUs);
      expect(
        order.map((t) => t.process),
        seed,
      ).toEqual(["cand-2", "cand-1", "cand-3"]);
      expectOneLeaderAtATime(w.terms);
      expect(order[2]!.startUs - order[1]!.endUs, seed).toBeLessThan(50_000);
    }
  });
});
