/**
 * A bare Simulation with a small cluster of one Raft-backed service (raft-zk or
 * etcd-lease) and a scripted client process, for unit tests of the servers (no lock
 * library, no scenario runner, no checkers): milliseconds per test, so StrykerJS can
 * judge a mutant of a server in about a second (vitest.mutation.services.config.ts).
 *
 * `ask` sends one request from a client to one server and runs the simulation until
 * the answer arrives (or `waitMs` passes): requests are synchronous from the test's side.
 */
import { Simulation } from "../../sim/simulation.js";
import type { Message } from "../../sim/simulation.js";
import type { HistoryEvent } from "../../sim/history.js";
import { createRaftNode } from "../../services/raft/node.js";
import { parseRaftServiceOptions, serverIds } from "../../services/raft-service/options.js";
import { RAFT_ZK_BUGS } from "../../designs/raft-zk/design.js";
import { ZkServer, zkServer } from "../../designs/raft-zk/server.js";
import { EtcdServer, etcdServer } from "../../designs/etcd-lease/server.js";
import { ZK_REQUEST, type ZkOp, type ZkReply } from "../../designs/raft-zk/protocol.js";
import { ETCD_REQUEST, type EtcdOp, type EtcdReply } from "../../designs/etcd-lease/protocol.js";

export interface ClusterOptions {
  nodes?: number;
  sessionTimeoutMs?: number;
  /** raft-zk only. */
  lockDelayMs?: number;
  bugs?: Record<string, boolean>;
  seed?: string;
  /** Extra design options (electionTimeoutMsMin, ...). */
  options?: Record<string, unknown>;
}

/** Steps the simulation is run in while waiting for an answer (bounded: waitMs / stepMs). */
const STEP_MS = 1;

export class Cluster<Op, Reply> {
  readonly sim: Simulation;
  readonly peers: string[];
  private readonly requestType: string;

  constructor(
    kind: "zk" | "etcd",
    readonly o: ReturnType<typeof parseRaftServiceOptions>,
    setup: (sim: Simulation, peers: string[]) => void,
    seed: string,
    clients: string[],
  ) {
    // Fixed 1 ms latency: the tests reason about times to the millisecond.
    this.sim = new Simulation({ seed, network: { latencyUsBase: 1000, latencyUsJitter: 0 } });
    this.peers = serverIds(kind, o.nodes);
    this.requestType = kind === "zk" ? ZK_REQUEST : ETCD_REQUEST;
    setup(this.sim, this.peers);
    for (const c of clients) this.sim.addProcess(c, "client", {}, () => ({}));
  }

  get nowMs(): number {
    return this.sim.nowUs / 1000;
  }

  /** Run the simulation for `ms` more. */
  runMs(ms: number): void {
    this.sim.run(this.sim.nowUs + ms * 1000);
  }

  /** Run until `pred` holds, at most `waitMs`; whether it held. */
  runUntil(pred: () => boolean, waitMs: number): boolean {
    for (let t = 0; t < waitMs && !pred(); t += STEP_MS) this.runMs(STEP_MS);
    return pred();
  }

  /** Send `op` from `client` to `server`; the reply, or undefined if none came within `waitMs`. */
  ask(server: string, op: Op, waitMs = 1000, client = "c1"): Reply | undefined {
    const pending = this.send(server, op, waitMs, client);
    this.runUntil(() => pending.done, waitMs);
    return pending.reply;
  }

  /** Send without waiting: the reply lands in the returned box as the simulation runs. */
  send(server: string, op: Op, timeoutMs = 1000, client = "c1"): { done: boolean; reply?: Reply } {
    const box: { done: boolean; reply?: Reply } = { done: false };
    const ctx = this.sim.context(client);
    ctx.spawn(ctx.call(server, { type: this.requestType, op } as Message, timeoutMs), (r) => {
      box.done = true;
      const v = r.value;
      if (v && v.ok) box.reply = v.reply as unknown as Reply;
    });
    return box;
  }

  /** The running leader of the highest term (an isolated old leader may still think it leads); undefined: none. */
  leader(isLeader: (id: string) => boolean, termOf: (id: string) => number): string | undefined {
    const leaders = this.peers.filter((p) => this.sim.process(p).state === "running" && isLeader(p));
    return leaders.sort((a, b) => termOf(b) - termOf(a))[0];
  }

  events(p: Partial<HistoryEvent>): HistoryEvent[] {
    return this.sim.history.filter((e) => Object.entries(p).every(([k, x]) => (e as unknown as Record<string, unknown>)[k] === x));
  }

  /** Cut `id` off from everyone (both directions). */
  isolate(id: string): void {
    for (const other of this.sim.processes.keys()) {
      if (other === id) continue;
      this.sim.network.cutLink(id, other);
      this.sim.network.cutLink(other, id);
    }
  }

  healAll(): void {
    this.sim.network.healAll();
  }
}

function parse(kind: "zk" | "etcd", c: ClusterOptions) {
  const raw = {
    nodes: c.nodes ?? 3,
    sessionTimeoutMs: c.sessionTimeoutMs ?? 1000,
    preferredLeader: `${kind}-1`,
    ...(c.bugs ? { bugs: c.bugs } : {}),
    ...c.options,
  };
  return parseRaftServiceOptions(raw, "test", "designOptions", kind === "zk" ? RAFT_ZK_BUGS : [], kind);
}

export class ZkCluster extends Cluster<ZkOp, ZkReply> {
  constructor(c: ClusterOptions = {}, clients = ["c1", "c2"]) {
    const o = parse("zk", c);
    super(
      "zk",
      o,
      (sim, peers) => {
        for (const id of peers) sim.addProcess(id, "server", {}, zkServer({ peers, options: o, createRaft: createRaftNode, lockDelayMs: c.lockDelayMs ?? 0 }));
      },
      c.seed ?? "zk",
      clients,
    );
  }

  server(id: string): ZkServer {
    return this.sim.context(id).behavior as ZkServer;
  }

  /** Run until a leader is elected (within 2 s); its id. */
  elect(): string {
    if (
      !this.runUntil(
        () =>
          this.leader(
            (p) => this.server(p).raft.isLeader(),
            (p) => this.server(p).raft.currentTerm(),
          ) !== undefined,
        2000,
      )
    )
      throw new Error("no leader within 2 s");
    return this.leader(
      (p) => this.server(p).raft.isLeader(),
      (p) => this.server(p).raft.currentTerm(),
    )!;
  }

  currentLeader(): string | undefined {
    return this.leader(
      (p) => this.server(p).raft.isLeader(),
      (p) => this.server(p).raft.currentTerm(),
    );
  }
}

export class EtcdCluster extends Cluster<EtcdOp, EtcdReply> {
  constructor(c: ClusterOptions = {}, clients = ["c1", "c2"]) {
    const o = parse("etcd", c);
    super(
      "etcd",
      o,
      (sim, peers) => {
        for (const id of peers) sim.addProcess(id, "server", {}, etcdServer({ peers, options: o, createRaft: createRaftNode }));
      },
      c.seed ?? "etcd",
      clients,
    );
  }

  server(id: string): EtcdServer {
    return this.sim.context(id).behavior as EtcdServer;
  }

  elect(): string {
    if (
      !this.runUntil(
        () =>
          this.leader(
            (p) => this.server(p).raft.isLeader(),
            (p) => this.server(p).raft.currentTerm(),
          ) !== undefined,
        2000,
      )
    )
      throw new Error("no leader within 2 s");
    return this.leader(
      (p) => this.server(p).raft.isLeader(),
      (p) => this.server(p).raft.currentTerm(),
    )!;
  }

  currentLeader(): string | undefined {
    return this.leader(
      (p) => this.server(p).raft.isLeader(),
      (p) => this.server(p).raft.currentTerm(),
    );
  }
}
