import { Simulation } from "../../sim/simulation.js";
import type { Rng } from "../../sim/rng.js";
import type { CreateRaftNode, RaftHost, RaftNodeOptions } from "../../services/raft/api.js";

/**
 * A Raft cluster in the lockstep simulator, after the MIT 6.824 lab's config.go: N
 * server processes each hosting a RaftHost built by the `CreateRaftNode` under test,
 * with helpers to find the leader, propose and wait for agreement, cut and heal
 * servers, crash and restart them, and make the network unreliable. Everything runs
 * on the simulation's virtual time; nothing waits on the wall clock.
 *
 * Safety is checked as it happens, through the RaftHost interface only:
 *  - State Machine Safety: every server applies the same command at each index;
 *  - applies come in log order (strictly increasing indexes per incarnation);
 *  - Election Safety: at most one leader per term (checked after every delivery).
 * A violation throws a RaftCheckError naming the seed.
 */

export type Cmd = number;

export class RaftCheckError extends Error {
  constructor(
    readonly seed: string,
    readonly check: string,
    detail: string,
  ) {
    super(`[seed=${seed}] ${check}: ${detail} (reproduce: same test, seed=${seed})`);
    this.name = "RaftCheckError";
  }
}

export interface ClusterOptions {
  n: number;
  seed: string;
  createNode: CreateRaftNode;
  /** Start with 10% loss, 2% duplicates, up to 27 ms jitter and no FIFO (6.824's unreliable net, plus duplicates). */
  unreliable?: boolean;
  /** Now and then give a random link 200–1000 ms of extra delay (6.824's long reordering). */
  longReordering?: boolean;
  raft?: Partial<Pick<RaftNodeOptions<Cmd>, "electionTimeoutMsMin" | "electionTimeoutMsMax" | "heartbeatIntervalMs" | "bugs" | "entriesPerAppendMax">>;
}

/** Wraps an implementation so every node it builds has `bugs` switched on. */
export function withBugs(create: CreateRaftNode, bugs: RaftNodeOptions<unknown>["bugs"]): CreateRaftNode {
  return (ctx, opts, restarted) => create(ctx, { ...opts, bugs: { ...opts.bugs, ...bugs } }, restarted);
}

/** Wraps an implementation so every node it builds sends at most `entriesPerAppendMax` entries per AppendEntries. */
export function withBatch(create: CreateRaftNode, entriesPerAppendMax: number): CreateRaftNode {
  return (ctx, opts, restarted) => create(ctx, { ...opts, entriesPerAppendMax }, restarted);
}

const RELIABLE_LINK = { lossRate: 0, duplicateRate: 0, latencyUsBase: 500, latencyUsJitter: 200 };
const UNRELIABLE_LINK = { lossRate: 0.1, duplicateRate: 0.02, latencyUsBase: 500, latencyUsJitter: 27_000 };

export class RaftCluster {
  readonly sim: Simulation;
  readonly ids: string[];
  readonly seed: string;
  /** Test-side randomness (which server to crash, ...), separate from the system's. */
  readonly rng: Rng;
  private readonly hosts: Array<RaftHost<Cmd> | undefined>;
  private readonly connected: boolean[];
  private readonly alive: boolean[];
  /** Per server, this incarnation's applies: index → command. */
  private readonly applied: Array<Map<number, Cmd>>;
  private readonly lastAppliedIndex: number[];
  /** First command applied at each index anywhere: what everyone must agree with. */
  private readonly committed = new Map<number, { cmd: Cmd; by: string }>();
  private readonly indexOfCmd = new Map<Cmd, number>();
  private readonly leaderOfTerm = new Map<number, string>();
  private unreliable = false;
  maxIndex = 0;

  constructor(readonly opts: ClusterOptions) {
    this.seed = opts.seed;
    this.sim = new Simulation({ seed: opts.seed, network: { ...RELIABLE_LINK, fifo: !opts.unreliable } });
    this.rng = this.sim.rng.fork("harness");
    this.ids = Array.from({ length: opts.n }, (_, i) => `s${i + 1}`);
    this.hosts = this.ids.map(() => undefined);
    this.connected = this.ids.map(() => true);
    this.alive = this.ids.map(() => true);
    this.applied = this.ids.map(() => new Map());
    this.lastAppliedIndex = this.ids.map(() => 0);
    if (opts.unreliable) this.setUnreliable(true);
    this.ids.forEach((id, i) => {
      this.sim.addProcess(id, "server", {}, (ctx, restarted) => {
        this.applied[i] = new Map();
        this.lastAppliedIndex[i] = 0;
        const host = opts.createNode<Cmd>(
          ctx,
          {
            peers: this.ids,
            electionTimeoutMsMin: 150,
            electionTimeoutMsMax: 300,
            heartbeatIntervalMs: 50,
            ...opts.raft,
            apply: (cmd, at) => this.onApply(i, cmd, at.index),
          },
          restarted,
        );
        this.hosts[i] = host;
        return {
          onMessage: (from, msg) => {
            if (!msg.type.startsWith("raft-")) return;
            host.handleRaftMessage(from, msg);
            this.checkLeaderUnique(i, host);
          },
        };
      });
    });
    if (opts.longReordering) this.scheduleLongReordering();
  }

  fail(check: string, detail: string): never {
    throw new RaftCheckError(this.seed, check, detail);
  }

  get nowMs(): number {
    return this.sim.nowUs / 1000;
  }

  /** Advance virtual time. */
  runMs(ms: number): void {
    this.sim.run(this.sim.nowUs + Math.round(ms * 1000));
  }

  host(i: number): RaftHost<Cmd> | undefined {
    return this.alive[i] ? this.hosts[i] : undefined;
  }

  isConnected(i: number): boolean {
    return this.connected[i]!;
  }

  isAlive(i: number): boolean {
    return this.alive[i]!;
  }

  // --- checks run as things happen ---

  private onApply(i: number, cmd: Cmd, index: number): void {
    const id = this.ids[i]!;
    if (index <= this.lastAppliedIndex[i]!) {
      this.fail("apply order", `${id} applied index ${index} after index ${this.lastAppliedIndex[i]}`);
    }
    this.lastAppliedIndex[i] = index;
    const first = this.committed.get(index);
    if (first && first.cmd !== cmd) {
      this.fail("state machine safety", `${id} applied ${cmd} at index ${index}, but ${first.by} applied ${first.cmd} there`);
    }
    if (!first) {
      this.committed.set(index, { cmd, by: id });
      if (!this.indexOfCmd.has(cmd)) this.indexOfCmd.set(cmd, index);
      this.maxIndex = Math.max(this.maxIndex, index);
    }
    this.applied[i]!.set(index, cmd);
  }

  private checkLeaderUnique(i: number, host: RaftHost<Cmd>): void {
    if (!host.isLeader()) return;
    const term = host.currentTerm();
    const other = this.leaderOfTerm.get(term);
    if (other === undefined) this.leaderOfTerm.set(term, this.ids[i]!);
    else if (other !== this.ids[i]) this.fail("election safety", `${other} and ${this.ids[i]} both leader in term ${term}`);
  }

  // --- 6.824 config helpers ---

  /** Leaders among connected, live servers, by term. */
  private leadersByTerm(): Map<number, number[]> {
    const m = new Map<number, number[]>();
    this.ids.forEach((_, i) => {
      const h = this.host(i);
      if (!h || !this.connected[i] || !h.isLeader()) return;
      const t = h.currentTerm();
      m.set(t, [...(m.get(t) ?? []), i]);
    });
    return m;
  }

  /** Waits (up to ~5 s virtual) for exactly one leader in the newest term; returns its index. */
  checkOneLeader(): number {
    for (let iter = 0; iter < 10; iter++) {
      this.runMs(this.rng.int(450, 550));
      const byTerm = this.leadersByTerm();
      let newest = -1;
      for (const [term, ls] of byTerm) {
        if (ls.length > 1) this.fail("one leader", `term ${term} has leaders ${ls.map((i) => this.ids[i]).join(", ")}`);
        newest = Math.max(newest, term);
      }
      if (newest >= 0) return byTerm.get(newest)![0]!;
    }
    return this.fail("one leader", `no leader after 5 s (t=${this.nowMs} ms)`);
  }

  /** All connected servers agree on the term; returns it. */
  checkTerms(): number {
    let term = -1;
    this.ids.forEach((id, i) => {
      const h = this.host(i);
      if (!h || !this.connected[i]) return;
      const t = h.currentTerm();
      if (term === -1) term = t;
      else if (t !== term) this.fail("terms", `servers disagree on term (${id} has ${t}, others ${term})`);
    });
    return term;
  }

  checkNoLeader(): void {
    this.ids.forEach((id, i) => {
      const h = this.host(i);
      if (h && this.connected[i] && h.isLeader()) this.fail("no leader", `${id} is leader (term ${h.currentTerm()}) but should not be`);
    });
  }

  /** How many servers have applied `index`, and the command there (agreement is checked on apply). */
  nCommitted(index: number): { count: number; cmd: Cmd | undefined } {
    let count = 0;
    for (const a of this.applied) if (a.has(index)) count++;
    return { count, cmd: this.committed.get(index)?.cmd };
  }

  /** Whether server i has applied `index` in its current incarnation. */
  hasApplied(i: number, index: number): boolean {
    return this.applied[i]!.has(index);
  }

  /** The index at which `cmd` was first applied, if any. */
  indexOf(cmd: Cmd): number | undefined {
    return this.indexOfCmd.get(cmd);
  }

  /**
   * Propose through `h`, checking the callback: an ok result must name the index at
   * which `cmd` was applied (the one an entry index promises as a zxid / revision).
   */
  propose(h: RaftHost<Cmd>, cmd: Cmd): void {
    h.propose<unknown>(cmd, (r) => {
      if (!r.ok) return;
      const at = this.committed.get(r.index);
      if (at?.cmd !== cmd) this.fail("propose result", `ok for cmd ${cmd} at index ${r.index}, where ${at?.cmd} was applied`);
    });
  }

  /** Propose `cmd` at the current leader, if some live connected server thinks it is one. */
  start(cmd: Cmd): number | undefined {
    for (let k = 0; k < this.ids.length; k++) {
      const h = this.host(k);
      if (h && this.connected[k] && h.isLeader()) {
        this.propose(h, cmd);
        return k;
      }
    }
    return undefined;
  }

  /**
   * 6.824's one(): keep submitting `cmd` to whoever is leader until `expectedServers`
   * servers have applied it at the same index (within 10 s virtual); return the index.
   * With `retry` false, a leader that accepted it must get it committed within 2 s.
   */
  one(cmd: Cmd, expectedServers: number, retry: boolean): number {
    const t0 = this.nowMs;
    let starter = 0;
    while (this.nowMs - t0 < 10_000) {
      let proposed = false;
      for (let k = 0; k < this.ids.length; k++) {
        const i = (starter + k) % this.ids.length;
        const h = this.host(i);
        if (h && this.connected[i] && h.isLeader()) {
          this.propose(h, cmd);
          proposed = true;
          starter = i;
          break;
        }
      }
      if (proposed) {
        const t1 = this.nowMs;
        while (this.nowMs - t1 < 2_000) {
          const index = this.indexOf(cmd);
          if (index !== undefined && this.nCommitted(index).count >= expectedServers) return index;
          this.runMs(20);
        }
        if (!retry) this.fail("one", `cmd ${cmd} not applied by ${expectedServers} servers within 2 s`);
      } else {
        this.runMs(50);
      }
      starter = (starter + 1) % this.ids.length;
    }
    const index = this.indexOf(cmd);
    return this.fail(
      "one",
      `cmd ${cmd} not applied by ${expectedServers} servers within 10 s (index ${index}, applied by ${index === undefined ? 0 : this.nCommitted(index).count})`,
    );
  }

  /** Waits until at least `n` servers applied `index` (or fails after `timeoutMs`); returns the command. */
  wait(index: number, n: number, timeoutMs = 5_000): Cmd {
    const t0 = this.nowMs;
    while (this.nCommitted(index).count < n) {
      if (this.nowMs - t0 > timeoutMs) this.fail("wait", `only ${this.nCommitted(index).count} servers applied index ${index}, wanted ${n}`);
      this.runMs(10);
    }
    return this.nCommitted(index).cmd!;
  }

  // --- faults ---

  /** Pairs cut by `partition` (on top of `disconnect`): "i,j" with i < j. */
  private readonly blocked = new Set<string>();

  private relink(): void {
    const net = this.sim.network;
    this.ids.forEach((a, i) => {
      this.ids.forEach((b, j) => {
        if (i === j) return;
        const key = i < j ? `${i},${j}` : `${j},${i}`;
        if (this.connected[i] && this.connected[j] && !this.blocked.has(key)) net.healLink(a, b);
        else net.cutLink(a, b);
      });
    });
  }

  /** Servers in different groups cannot talk (servers in no group keep their links). */
  partition(groups: number[][]): void {
    const groupOf = new Map<number, number>();
    groups.forEach((g, k) => g.forEach((i) => groupOf.set(i, k)));
    this.blocked.clear();
    for (const [i, gi] of groupOf) for (const [j, gj] of groupOf) if (i < j && gi !== gj) this.blocked.add(`${i},${j}`);
    this.relink();
  }

  /** Undo `partition` (servers cut by `disconnect` stay cut). */
  heal(): void {
    this.blocked.clear();
    this.relink();
  }

  /** Runs until one of `among` is leader (up to `timeoutMs`); returns it. */
  waitLeader(among: number[], timeoutMs = 5_000): number {
    const t0 = this.nowMs;
    for (;;) {
      for (const i of among) if (this.host(i)?.isLeader()) return i;
      if (this.nowMs - t0 > timeoutMs) return this.fail("leader", `none of ${among.map((i) => this.ids[i]).join(", ")} became leader within ${timeoutMs} ms`);
      this.runMs(10);
    }
  }

  /** Cut server i off from everyone (6.824's disconnect): messages in flight are lost too. */
  disconnect(i: number): void {
    this.connected[i] = false;
    this.relink();
  }

  connect(i: number): void {
    this.connected[i] = true;
    this.relink();
  }

  /** Crash server i: volatile state is gone, ctx.disk stays. */
  crash(i: number): void {
    if (!this.alive[i]) return;
    this.sim.crash(this.ids[i]!);
    this.alive[i] = false;
  }

  /** Restart server i from what it persisted; it re-applies its log from index 1. */
  restart(i: number): void {
    this.sim.restart(this.ids[i]!);
    this.alive[i] = true;
  }

  setUnreliable(on: boolean): void {
    this.unreliable = on;
    for (const a of this.ids) for (const b of this.ids) if (a !== b) this.sim.network.setLink(a, b, on ? UNRELIABLE_LINK : RELIABLE_LINK);
  }

  private scheduleLongReordering(): void {
    const tick = (): void => {
      if (this.unreliable) {
        const a = this.rng.pick(this.ids);
        const b = this.rng.pick(this.ids.filter((x) => x !== a));
        this.sim.network.setExtraDelay(a, b, this.rng.int(200, 1000) * 1000);
        const endUs = this.sim.nowUs + 100_000;
        this.sim.schedule(endUs, () => this.sim.network.setExtraDelay(a, b, 0));
      }
      this.sim.schedule(this.sim.nowUs + 50_000, tick);
    };
    this.sim.schedule(50_000, tick);
  }
}
