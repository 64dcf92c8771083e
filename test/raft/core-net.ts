import seedrandom from "seedrandom";
import type { RaftBug } from "../../services/raft/api.js";
import { initialState, step } from "../../services/raft/core/step.js";
import { rulesWithBugs } from "../../services/raft/variants.js";
import type { Entry, Persisted, RaftEffect, RaftInput, RaftMessage, RaftState } from "../../services/raft/core/types.js";

/**
 * An in-memory network of Raft cores driven through the core API only (after etcd's
 * raft `network` test helper): no simulator, no timers. The test decides which input
 * each node gets and which message is delivered, dropped or held back; a node's disk
 * is the result of the persist effects it executed, and a crash throws away everything
 * else. Effects run one at a time, so a test can crash a node between two effects of
 * one step.
 *
 * Checked as effects execute (a violation throws, naming the test's label):
 *  - durability before send: every message leaves only once what it promises is on the
 *    sender's disk (its term; a granted vote; an acknowledged log prefix; a candidate's
 *    self-vote), Figure 2's "updated on stable storage before responding to RPCs";
 *  - state machine safety: every node applies the same (term, command) at each index;
 *  - election safety: at most one leader per term.
 */
export type Cmd = string;

export interface NetMessage {
  from: string;
  to: string;
  msg: RaftMessage<Cmd>;
}

export interface CoreNetOptions {
  n: number;
  /** Label in failures (test name and seed). */
  label: string;
  entriesPerAppendMax?: number;
  bugs?: Partial<Record<RaftBug, boolean>>;
  noopOnElection?: boolean;
}

export class CoreNetError extends Error {
  constructor(label: string, check: string, detail: string) {
    super(`[${label}] ${check}: ${detail}`);
    this.name = "CoreNetError";
  }
}

/** Stop a node's effect execution after this many effects of the current step (a crash mid-step). */
export class CrashPoint {
  constructor(readonly afterEffects: number) {}
}

interface Node {
  id: string;
  state: RaftState<Cmd>;
  disk: Persisted<Cmd>;
  alive: boolean;
  /** This incarnation's applied index. */
  applied: number;
}

export class CoreNet {
  readonly ids: string[];
  private readonly nodes = new Map<string, Node>();
  /** Messages sent and not yet delivered, in send order. */
  readonly inflight: NetMessage[] = [];
  /** Blocked directed links "a>b". */
  private readonly cut = new Set<string>();
  private readonly committed = new Map<number, { term: number; cmd: Cmd | null; by: string }>();
  private readonly leaderOfTerm = new Map<number, string>();
  /** Every effect executed, for tests that inspect order. */
  readonly trace: Array<{ id: string; effect: RaftEffect<Cmd> }> = [];
  private nextProposal = 1;

  constructor(readonly opts: CoreNetOptions) {
    this.ids = Array.from({ length: opts.n }, (_, i) => `n${i + 1}`);
    for (const id of this.ids) {
      this.nodes.set(id, { id, state: this.fresh(id), disk: { term: 0, votedFor: null, log: [] }, alive: false, applied: 0 });
      this.restart(id);
    }
  }

  private fresh(id: string): RaftState<Cmd> {
    // One seeded stream per node: election timeouts are drawn, never read from the host.
    const rnd = seedrandom(`${this.opts.label}/${id}`);
    return initialState<Cmd>({
      id,
      peers: this.ids,
      electionTimeoutMsMin: 150,
      electionTimeoutMsMax: 300,
      heartbeatIntervalMs: 50,
      entriesPerAppendMax: this.opts.entriesPerAppendMax ?? 64,
      noopOnElection: this.opts.noopOnElection ?? false,
      rules: rulesWithBugs(this.opts.bugs),
      random: () => rnd(),
    });
  }

  fail(check: string, detail: string): never {
    throw new CoreNetError(this.opts.label, check, detail);
  }

  node(id: string): RaftState<Cmd> {
    return this.get(id).state;
  }

  disk(id: string): Persisted<Cmd> {
    return this.get(id).disk;
  }

  isAlive(id: string): boolean {
    return this.get(id).alive;
  }

  private get(id: string): Node {
    const n = this.nodes.get(id);
    if (!n) throw new Error(`no node ${id}`);
    return n;
  }

  /** Inputs fed so far (restarts excluded): what `crashAt` counts. */
  inputsFed = 0;
  /** Effects of each input fed, in order (so a test can enumerate every crash point). */
  readonly effectsPerInput: number[] = [];
  /**
   * Crash (and at once restart) the node fed input number `input` (0-based) after
   * `afterEffects` of that step's effects have executed.
   */
  crashAt: { input: number; afterEffects: number } | undefined;
  /** Set once `crashAt` fired. */
  crashed: { id: string; input: RaftInput<Cmd>; effects: RaftEffect<Cmd>[]; afterEffects: number } | undefined;

  /** Feed one input; with `crash`, the node dies after that many of the step's effects. */
  input(id: string, input: RaftInput<Cmd>, crash?: CrashPoint): RaftEffect<Cmd>[] {
    const n = this.get(id);
    if (!n.alive) return [];
    const seq = this.inputsFed++;
    const r = step(n.state, input);
    n.state = r.state;
    this.effectsPerInput.push(r.effects.length);
    let stopAt = crash?.afterEffects;
    const planned = this.crashAt !== undefined && this.crashAt.input === seq;
    if (planned) stopAt = this.crashAt!.afterEffects;
    if (stopAt === undefined) {
      for (const e of r.effects) this.execute(n, e);
      if (n.state.role === "leader") this.checkLeader(n);
      return r.effects;
    }
    for (let k = 0; k < Math.min(stopAt, r.effects.length); k++) this.execute(n, r.effects[k]!);
    this.crash(id);
    if (planned) {
      this.crashed = { id, input, effects: r.effects, afterEffects: stopAt };
      this.restart(id);
    }
    return r.effects;
  }

  timeout(id: string, crash?: CrashPoint): RaftEffect<Cmd>[] {
    return this.input(id, { type: "election-timeout" }, crash);
  }

  heartbeat(id: string): RaftEffect<Cmd>[] {
    return this.input(id, { type: "heartbeat-timeout" });
  }

  propose(id: string, cmd: Cmd): RaftEffect<Cmd>[] {
    return this.input(id, { type: "propose", id: this.nextProposal++, cmd });
  }

  /** Crash: volatile state and undelivered messages to it are gone; the disk stays. */
  crash(id: string): void {
    const n = this.get(id);
    n.alive = false;
    for (let i = this.inflight.length - 1; i >= 0; i--) if (this.inflight[i]!.to === id) this.inflight.splice(i, 1);
  }

  /** Restart from the disk (a copy: the core must not share arrays with it). */
  restart(id: string): void {
    const n = this.get(id);
    n.alive = true;
    n.applied = 0;
    n.state = this.fresh(id);
    const persisted: Persisted<Cmd> = { term: n.disk.term, votedFor: n.disk.votedFor, log: [...n.disk.log] };
    const r = step(n.state, { type: "restart", persisted });
    n.state = r.state;
    for (const e of r.effects) this.execute(n, e);
  }

  /** Cut (or heal) both directions between a and b. */
  setLink(a: string, b: string, up: boolean): void {
    for (const k of [`${a}>${b}`, `${b}>${a}`]) {
      if (up) this.cut.delete(k);
      else this.cut.add(k);
    }
  }

  /** Only members of the same group talk; drops what is in flight across groups. */
  partition(groups: string[][]): void {
    const groupOf = new Map<string, number>();
    groups.forEach((g, i) => g.forEach((id) => groupOf.set(id, i)));
    for (const a of this.ids) for (const b of this.ids) if (a !== b) this.setLink(a, b, groupOf.get(a) === groupOf.get(b));
    for (let i = this.inflight.length - 1; i >= 0; i--) {
      const m = this.inflight[i]!;
      if (this.cut.has(`${m.from}>${m.to}`)) this.inflight.splice(i, 1);
    }
  }

  heal(): void {
    this.cut.clear();
  }

  /** Deliver the oldest in-flight message matching `pick`; false if none. */
  deliverOne(pick: (m: NetMessage) => boolean = () => true, crash?: CrashPoint): boolean {
    const i = this.inflight.findIndex(pick);
    if (i < 0) return false;
    const m = this.inflight.splice(i, 1)[0]!;
    this.input(m.to, { type: "message", from: m.from, msg: m.msg }, crash);
    return true;
  }

  /** Deliver until nothing is in flight (bounded: a livelock fails instead of hanging). */
  deliverAll(maxMessages = 100_000): number {
    let k = 0;
    while (this.inflight.length > 0) {
      if (k++ >= maxMessages) this.fail("quiescence", `still ${this.inflight.length} messages in flight after ${maxMessages} deliveries`);
      this.deliverOne();
    }
    return k;
  }

  /** Drop every in-flight message matching `pick` (all by default). */
  drop(pick: (m: NetMessage) => boolean = () => true): void {
    for (let i = this.inflight.length - 1; i >= 0; i--) if (pick(this.inflight[i]!)) this.inflight.splice(i, 1);
  }

  /** Make `id` leader: time it out and deliver until it wins (or fail). */
  elect(id: string): void {
    this.timeout(id);
    this.deliverAll();
    if (this.node(id).role !== "leader") this.fail("elect", `${id} did not win (role ${this.node(id).role}, term ${this.node(id).term})`);
  }

  leaders(): string[] {
    return this.ids.filter((id) => this.isAlive(id) && this.node(id).role === "leader");
  }

  // --- effect execution and the checks on it ---

  private execute(n: Node, e: RaftEffect<Cmd>): void {
    this.trace.push({ id: n.id, effect: e });
    switch (e.kind) {
      case "persist-hard-state":
        n.disk = { ...n.disk, term: e.term, votedFor: e.votedFor };
        return;
      case "persist-log": {
        if (e.fromIndex < 1 || e.fromIndex > n.disk.log.length + 1) {
          this.fail("persist-log", `${n.id} writes from index ${e.fromIndex} but its disk log holds ${n.disk.log.length} entries (a hole)`);
        }
        n.disk = { ...n.disk, log: [...n.disk.log.slice(0, e.fromIndex - 1), ...e.entries] };
        return;
      }
      case "send":
        this.checkDurable(n, e.to, e.msg);
        if (!this.cut.has(`${n.id}>${e.to}`)) this.inflight.push({ from: n.id, to: e.to, msg: e.msg });
        return;
      case "apply":
        this.onApply(n, e.index, e.term, e.cmd);
        return;
      default:
      // Timers and replies: the test drives time, and replies need no check here.
    }
  }

  private checkDurable(n: Node, to: string, m: RaftMessage<Cmd>): void {
    const d = n.disk;
    const say = (what: string): never => this.fail("durability before send", `${n.id} sent ${m.type} (term ${m.term}) to ${to} before ${what}`);
    if (d.term !== m.term) say(`its term ${m.term} was on disk (disk: ${d.term})`);
    if (m.type === "raft-vote" && d.votedFor !== n.id) say(`its self-vote was on disk (disk votedFor: ${d.votedFor})`);
    if (m.type === "raft-vote-resp" && m.granted && d.votedFor !== to) say(`its vote for ${to} was on disk (disk votedFor: ${d.votedFor})`);
    if (m.type === "raft-append-resp" && m.success) {
      const live = n.state.log;
      if (d.log.length < m.matchIndex) say(`entries up to ${m.matchIndex} were on disk (disk holds ${d.log.length})`);
      for (let i = 0; i < m.matchIndex; i++) {
        if (d.log[i]!.term !== live[i]!.term || d.log[i]!.cmd !== live[i]!.cmd) say(`the entry at ${i + 1} on disk matched the log it acknowledged`);
      }
    }
    if (m.type === "raft-append") {
      // A leader's entries must be durable before it counts itself among their replicas.
      if (d.log.length < n.state.log.length) say(`its own log (${n.state.log.length} entries) was on disk (disk holds ${d.log.length})`);
    }
  }

  private checkLeader(n: Node): void {
    const term = n.state.term;
    const other = this.leaderOfTerm.get(term);
    if (other === undefined) this.leaderOfTerm.set(term, n.id);
    else if (other !== n.id) this.fail("election safety", `${other} and ${n.id} both leader in term ${term}`);
  }

  private onApply(n: Node, index: number, term: number, cmd: Cmd | null): void {
    if (index !== n.applied + 1) this.fail("apply order", `${n.id} applied index ${index} after ${n.applied}`);
    n.applied = index;
    const first = this.committed.get(index);
    if (!first) this.committed.set(index, { term, cmd, by: n.id });
    else if (first.term !== term || first.cmd !== cmd) {
      this.fail("state machine safety", `${n.id} applied (${term}, ${cmd}) at ${index}, ${first.by} applied (${first.term}, ${first.cmd})`);
    }
  }

  /** Commands applied anywhere, by index. */
  committedLog(): Array<{ term: number; cmd: Cmd | null }> {
    const out: Array<{ term: number; cmd: Cmd | null }> = [];
    for (let i = 1; this.committed.has(i); i++) out.push(this.committed.get(i)!);
    return out;
  }

  appliedIndex(id: string): number {
    return this.get(id).applied;
  }
}

export const termsOf = (log: readonly Entry<Cmd>[]): number[] => log.map((e) => e.term);
