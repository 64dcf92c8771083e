import { rulesWithBugs } from "./variants.js";
import type { Message, ProcessContext, TimerHandle } from "../../sim/simulation.js";
import { isRaftMessageType, type BarrierResult, type CreateRaftNode, type ProposeResult, type RaftHost, type RaftNodeOptions } from "./api.js";
import { initialState, stepInto } from "./core/step.js";
import type { Entry, Persisted, RaftConfig, RaftEffect, RaftInput, RaftMessage, RaftState } from "./core/types.js";
import { LazyTimer } from "./lazy-timer.js";
import { Waiters } from "./waiters.js";

/**
 * The adapter that runs the pure core (core/step.ts) in the simulator: messages over
 * ctx.send, timers on ctx.setTimer (the monotonic clock), persistence in ctx.disk (the
 * only thing that survives a crash), applies and client callbacks.
 *
 * Effects are executed in the order `step` returns them (persists first), so a vote
 * or an acknowledgement never leaves before what it promises is on disk. Inputs that
 * arrive while effects are executing (a callback that proposes) are queued and
 * stepped afterwards, so applies stay in log order.
 */

/** Disk keys (one node per process). */
const DISK_TERM = "raft/term";
const DISK_VOTED_FOR = "raft/votedFor";
/** The entries after the snapshot (all of them without one). */
const DISK_LOG = "raft/log";
const DISK_SNAPSHOT = "raft/snapshot";

/** The service's snapshot on disk: the state through `index` (of `term`). */
interface DiskSnapshot {
  index: number;
  term: number;
  state: unknown;
}

const SNAPSHOT_EVERY_ENTRIES = 8192;

export function readPersisted<Cmd>(disk: Map<string, unknown>): Persisted<Cmd> {
  const snap = disk.get(DISK_SNAPSHOT) as DiskSnapshot | undefined;
  return {
    term: (disk.get(DISK_TERM) as number | undefined) ?? 0,
    votedFor: (disk.get(DISK_VOTED_FOR) as string | null | undefined) ?? null,
    log: (disk.get(DISK_LOG) as Entry<Cmd>[] | undefined) ?? [],
    ...(snap !== undefined ? { snapshotIndex: snap.index, snapshotTerm: snap.term } : {}),
  };
}

/** A proposal's callback (kind "propose") or a read barrier's ("read"). */
type WaiterCb = ((r: ProposeResult<unknown>) => void) | ((r: BarrierResult) => void);

/** What every confirmed read barrier is told: shared, never written. */
const READ_OK: BarrierResult = Object.freeze({ ok: true });

export const createRaftNode: CreateRaftNode = <Cmd>(ctx: ProcessContext, opts: RaftNodeOptions<Cmd>, _restarted: boolean): RaftHost<Cmd> => {
  const node = new RaftNode<Cmd>(ctx, opts);
  // Boot (or reboot) from the disk: the service's state from its snapshot, then the log after it.
  const snap = ctx.disk.get(DISK_SNAPSHOT) as DiskSnapshot | undefined;
  if (snap !== undefined) opts.restore!(snap.state);
  node.feed({ type: "restart", persisted: readPersisted<Cmd>(ctx.disk) });
  return {
    handleRaftMessage: (from: string, msg: Message): void => node.takeMessage(from, msg),
    isLeader: () => node.state.role === "leader",
    leaderId: () => node.state.leaderId,
    currentTerm: () => node.state.term,
    propose<Res>(cmd: Cmd, cb: (r: ProposeResult<Res>) => void): void {
      node.feed({ type: "propose", id: node.wait("propose", cb as (r: ProposeResult<unknown>) => void), cmd });
    },
    readBarrier(cb: (r: BarrierResult) => void): void {
      node.feed({ type: "read-index", id: node.wait("read", cb) });
    },
  };
};

function configOf<Cmd>(ctx: ProcessContext, opts: RaftNodeOptions<Cmd>): RaftConfig {
  const cfg: RaftConfig = {
    id: ctx.id,
    peers: [...opts.peers],
    electionTimeoutMsMin: opts.electionTimeoutMsMin,
    electionTimeoutMsMax: opts.electionTimeoutMsMax,
    heartbeatIntervalMs: opts.heartbeatIntervalMs,
    entriesPerAppendMax: opts.entriesPerAppendMax ?? 64,
    noopOnElection: opts.noopOnElection ?? false,
    rules: rulesWithBugs(opts.bugs),
    random: () => ctx.rng.float(),
  };
  if (!cfg.peers.includes(ctx.id)) throw new Error(`raft: peers ${cfg.peers.join(",")} do not include ${ctx.id}`);
  return cfg;
}

/** One node: the core's state, and the executor of its effects. */
class RaftNode<Cmd> {
  state: RaftState<Cmd>;
  /** The heartbeat's kernel timer (the election timer is the LazyTimer below). */
  private heartbeat: TimerHandle | undefined;
  private diskLog: Entry<Cmd>[] | undefined;
  /** A snapshot taken at an applied index, kept until every server holds the log through it (then the log it covers goes). */
  private pendingSnapshot: { index: number; state: unknown } | undefined;
  private readonly snapshotEvery: number;
  private readonly waiters = new Waiters<WaiterCb>();
  private nextId = 1;
  private readonly queue: RaftInput<Cmd>[] = [];
  private busy = false;
  // One step's effects, executed before the next step refills it (inputs that arrive
  // meanwhile are queued): one array for the node's life, not one per step.
  private readonly effects: RaftEffect<Cmd>[] = [];
  // Timer inputs and callbacks are the same every time: built once, not per (re)arm
  // (a follower re-arms its election timer on every AppendEntries).
  private readonly electionInput: RaftInput<Cmd> = { type: "election-timeout" };
  private readonly heartbeatInput: RaftInput<Cmd> = { type: "heartbeat-timeout" };
  private readonly fireElection = (): void => this.feed(this.electionInput);
  private readonly fireHeartbeat = (): void => this.feed(this.heartbeatInput);
  private readonly messageInput: Extract<RaftInput<Cmd>, { type: "message" }> = {
    type: "message",
    from: "",
    msg: { type: "raft-vote-resp", term: 0, granted: false },
  };
  // Reset on every AppendEntries a follower takes: its deadline moves, its kernel timer stays.
  private readonly election: LazyTimer;
  // Where each apply is: one object rewritten per apply (RaftNodeOptions.apply reads it during the call).
  private readonly appliedAt = { index: 0, term: 0, awaited: false };

  constructor(
    private readonly ctx: ProcessContext,
    private readonly opts: RaftNodeOptions<Cmd>,
  ) {
    this.state = initialState(configOf(ctx, opts));
    this.election = new LazyTimer(ctx, this.fireElection);
    this.snapshotEvery = opts.snapshot !== undefined && opts.restore !== undefined ? (opts.snapshotEveryEntries ?? SNAPSHOT_EVERY_ENTRIES) : Infinity;
  }

  /** A callback's id for the core's reply. */
  wait(kind: "propose" | "read", cb: WaiterCb): number {
    const id = this.nextId++;
    this.waiters.set(id, kind, cb);
    return id;
  }

  takeMessage(from: string, msg: Message): void {
    if (typeof msg.type !== "string" || !isRaftMessageType(msg.type)) return;
    // Not nested in a step and nothing queued: one reused input (step keeps no reference
    // to it); otherwise a fresh one, as it may wait in the queue.
    if (!this.busy && this.queue.length === 0) {
      this.messageInput.from = from;
      this.messageInput.msg = msg as unknown as RaftMessage<Cmd>;
      return this.feed(this.messageInput);
    }
    this.feed({ type: "message", from, msg: msg as unknown as RaftMessage<Cmd> });
  }

  feed(input: RaftInput<Cmd>): void {
    const queue = this.queue;
    if (this.busy) {
      queue.push(input);
      return;
    }
    this.busy = true;
    let head = 0;
    try {
      let next: RaftInput<Cmd> | undefined = input;
      // Leftovers of a step that threw go first, as they arrived first.
      if (queue.length > 0) {
        queue.push(input);
        next = queue[head++];
      }
      // Then whatever the effects queue, in arrival order (an index, not shift()).
      const effects = this.effects;
      while (next !== undefined) {
        this.state = stepInto(this.state, next, effects);
        for (let i = 0; i < effects.length; i++) this.execute(effects[i]!);
        next = head < queue.length ? queue[head++] : undefined;
      }
    } finally {
      // Only when something was queued (splice allocates its result even for 0).
      if (head > 0) queue.splice(0, head);
      this.busy = false;
    }
    const s = this.state;
    if (s.lastApplied - s.snapshotIndex >= this.snapshotEvery) this.compactLog(s);
  }

  /**
   * §7: take a snapshot at the applied index every snapshotEvery entries; once every
   * server holds the log through it (compactIndex), the core drops those entries.
   */
  private compactLog(s: RaftState<Cmd>): void {
    const pending = this.pendingSnapshot;
    if (pending === undefined || pending.index <= s.snapshotIndex) {
      this.pendingSnapshot = { index: s.lastApplied, state: this.opts.snapshot!() };
      return;
    }
    if (pending.index <= s.compactIndex) this.feed({ type: "compact", index: pending.index });
  }

  private execute(e: RaftEffect<Cmd>): void {
    switch (e.kind) {
      case "persist-hard-state":
        this.ctx.disk.set(DISK_TERM, e.term);
        this.ctx.disk.set(DISK_VOTED_FOR, e.votedFor);
        return;
      case "persist-log":
        return this.persistLog(e.fromIndex, e.entries);
      case "persist-snapshot":
        return this.persistSnapshot(e.index, e.term);
      case "send":
        this.ctx.send(e.to, e.msg as unknown as Message);
        return;
      case "set-timer":
        if (e.timer === "election") return this.election.set(e.delayMs);
        this.ctx.cancelTimer(this.heartbeat);
        this.heartbeat = this.ctx.setTimer(e.delayMs, this.fireHeartbeat);
        return;
      case "cancel-timer":
        if (e.timer === "election") return this.election.cancel();
        this.ctx.cancelTimer(this.heartbeat);
        this.heartbeat = undefined;
        return;
      case "apply":
        return this.apply(e);
      case "reply":
        return this.reply(e);
    }
  }

  /** The log on the disk: this node alone writes it, so the array found once is the one there. */
  private get diskEntries(): Entry<Cmd>[] {
    let log = this.diskLog;
    if (log === undefined) {
      log = this.ctx.disk.get(DISK_LOG) as Entry<Cmd>[] | undefined;
      if (!log) this.ctx.disk.set(DISK_LOG, (log = []));
      this.diskLog = log;
    }
    return log;
  }

  private persistLog(fromIndex: number, entries: readonly Entry<Cmd>[]): void {
    const log = this.diskEntries;
    // The disk's log starts after the snapshot, as the core's does.
    const keep = fromIndex - 1 - this.state.snapshotIndex;
    // Cut only on a truncation: setting length is a runtime call even when it changes nothing.
    if (log.length !== keep) log.length = keep;
    for (const entry of entries) log.push(entry);
  }

  private persistSnapshot(index: number, term: number): void {
    const snap = this.pendingSnapshot!;
    if (snap.index !== index) throw new Error(`raft: snapshot at ${snap.index} persisted as ${index}`);
    this.pendingSnapshot = undefined;
    const before = (this.ctx.disk.get(DISK_SNAPSHOT) as DiskSnapshot | undefined)?.index ?? 0;
    this.ctx.disk.set(DISK_SNAPSHOT, { index, term, state: snap.state });
    this.diskEntries.splice(0, index - before);
  }

  private apply(e: Extract<RaftEffect<Cmd>, { kind: "apply" }>): void {
    // No-ops (cmd null) are the core's own; the service never sees them.
    // The proposer's callback first, so the service knows whether a result is awaited.
    const cb = e.proposalId !== undefined ? this.waiters.take(e.proposalId) : undefined;
    const proposer = cb !== undefined && this.waiters.takenKind === "propose" ? (cb as (r: ProposeResult<unknown>) => void) : undefined;
    let result: unknown;
    if (e.cmd !== null) {
      const at = this.appliedAt;
      at.index = e.index;
      at.term = e.term;
      at.awaited = proposer !== undefined;
      result = this.opts.apply(e.cmd, at);
    }
    proposer?.({ ok: true, result, index: e.index, term: e.term });
  }

  private reply(e: Extract<RaftEffect<Cmd>, { kind: "reply" }>): void {
    const cb = this.waiters.take(e.id);
    if (cb === undefined) return;
    if (e.result.ok) {
      if (this.waiters.takenKind === "read") (cb as (r: BarrierResult) => void)(READ_OK);
    } else cb({ ok: false, error: e.result.error });
  }
}
