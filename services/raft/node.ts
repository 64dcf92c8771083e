import { rulesWithBugs } from "./variants.js";
import type { Message, ProcessContext, TimerHandle } from "../../sim/simulation.js";
import { isRaftMessageType, type BarrierResult, type CreateRaftNode, type ProposeResult, type RaftHost, type RaftNodeOptions } from "./api.js";
import { initialState, stepInto } from "./core/step.js";
import type { Entry, Persisted, RaftConfig, RaftEffect, RaftInput, RaftMessage, RaftState, TimerName } from "./core/types.js";
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
const DISK_LOG = "raft/log";

export function readPersisted<Cmd>(disk: Map<string, unknown>): Persisted<Cmd> {
  return {
    term: (disk.get(DISK_TERM) as number | undefined) ?? 0,
    votedFor: (disk.get(DISK_VOTED_FOR) as string | null | undefined) ?? null,
    log: (disk.get(DISK_LOG) as Entry<Cmd>[] | undefined) ?? [],
  };
}

/** A proposal's callback (kind "propose") or a read barrier's ("read"). */
type WaiterCb = ((r: ProposeResult<unknown>) => void) | ((r: BarrierResult) => void);

/** What every confirmed read barrier is told: shared, never written. */
const READ_OK: BarrierResult = Object.freeze({ ok: true });

export const createRaftNode: CreateRaftNode = <Cmd>(
  ctx: ProcessContext,
  opts: RaftNodeOptions<Cmd>,
  _restarted: boolean,
): RaftHost<Cmd> => {
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

  let state: RaftState<Cmd> = initialState(cfg);
  /** The heartbeat's kernel timer (the election timer is the LazyTimer below). */
  let heartbeat: TimerHandle | undefined;
  let diskLog: Entry<Cmd>[] | undefined;
  const waiters = new Waiters<WaiterCb>();
  let nextId = 1;
  const queue: RaftInput<Cmd>[] = [];
  let busy = false;
  // One step's effects, executed before the next step refills it (inputs that arrive
  // meanwhile are queued): one array for the node's life, not one per step.
  const effects: RaftEffect<Cmd>[] = [];
  // Timer inputs and callbacks are the same every time: built once, not per (re)arm
  // (a follower re-arms its election timer on every AppendEntries; issue 17).
  const timerInputs: Record<TimerName, RaftInput<Cmd>> = { election: { type: "election-timeout" }, heartbeat: { type: "heartbeat-timeout" } };
  const timerFires: Record<TimerName, () => void> = { election: () => feed(timerInputs.election), heartbeat: () => feed(timerInputs.heartbeat) };
  const messageInput: Extract<RaftInput<Cmd>, { type: "message" }> = { type: "message", from: "", msg: { type: "raft-vote-resp", term: 0, granted: false } };
  // Reset on every AppendEntries a follower takes: its deadline moves, its kernel timer stays.
  const election = new LazyTimer(ctx, timerFires.election);
  // Where each apply is: one object rewritten per apply (RaftNodeOptions.apply reads it during the call).
  const appliedAt = { index: 0, term: 0, awaited: false };

  function feed(input: RaftInput<Cmd>): void {
    if (busy) {
      queue.push(input);
      return;
    }
    busy = true;
    let head = 0;
    try {
      let next: RaftInput<Cmd> | undefined = input;
      // Leftovers of a step that threw go first, as they arrived first.
      if (queue.length > 0) {
        queue.push(input);
        next = queue[head++];
      }
      // Then whatever the effects queue, in arrival order (an index, not shift()).
      while (next !== undefined) {
        state = stepInto(state, next, effects);
        for (let i = 0; i < effects.length; i++) execute(effects[i]!);
        next = head < queue.length ? queue[head++] : undefined;
      }
    } finally {
      // Only when something was queued (splice allocates its result even for 0).
      if (head > 0) queue.splice(0, head);
      busy = false;
    }
  }

  function execute(e: RaftEffect<Cmd>): void {
    switch (e.kind) {
      case "persist-hard-state":
        ctx.disk.set(DISK_TERM, e.term);
        ctx.disk.set(DISK_VOTED_FOR, e.votedFor);
        return;
      case "persist-log": {
        // This node alone writes its log to the disk: the array found once is the one there.
        let log = diskLog;
        if (log === undefined) {
          log = ctx.disk.get(DISK_LOG) as Entry<Cmd>[] | undefined;
          if (!log) ctx.disk.set(DISK_LOG, (log = []));
          diskLog = log;
        }
        // Cut only on a truncation: setting length is a runtime call even when it changes nothing.
        if (log.length !== e.fromIndex - 1) log.length = e.fromIndex - 1;
        for (const entry of e.entries) log.push(entry);
        return;
      }
      case "send":
        ctx.send(e.to, e.msg as unknown as Message);
        return;
      case "set-timer": {
        if (e.timer === "election") return election.set(e.delayMs);
        ctx.cancelTimer(heartbeat);
        heartbeat = ctx.setTimer(e.delayMs, timerFires.heartbeat);
        return;
      }
      case "cancel-timer":
        if (e.timer === "election") return election.cancel();
        ctx.cancelTimer(heartbeat);
        heartbeat = undefined;
        return;
      case "apply": {
        // No-ops (cmd null) are the core's own; the service never sees them.
        // The proposer's callback first, so the service knows whether a result is awaited.
        const cb = e.proposalId !== undefined ? waiters.take(e.proposalId) : undefined;
        const proposer = cb !== undefined && waiters.takenKind === "propose" ? (cb as (r: ProposeResult<unknown>) => void) : undefined;
        let result: unknown;
        if (e.cmd !== null) {
          appliedAt.index = e.index;
          appliedAt.term = e.term;
          appliedAt.awaited = proposer !== undefined;
          result = opts.apply(e.cmd, appliedAt);
        }
        proposer?.({ ok: true, result, index: e.index, term: e.term });
        return;
      }
      case "reply": {
        const cb = waiters.take(e.id);
        if (cb === undefined) return;
        if (e.result.ok) {
          if (waiters.takenKind === "read") (cb as (r: BarrierResult) => void)(READ_OK);
        } else cb({ ok: false, error: e.result.error });
        return;
      }
    }
  }

  // Boot (or reboot) from the disk.
  feed({ type: "restart", persisted: readPersisted<Cmd>(ctx.disk) });

  return {
    handleRaftMessage(from: string, msg: Message): void {
      if (typeof msg.type !== "string" || !isRaftMessageType(msg.type)) return;
      // Not nested in a step and nothing queued: one reused input (step keeps no reference
      // to it); otherwise a fresh one, as it may wait in the queue.
      if (!busy && queue.length === 0) {
        messageInput.from = from;
        messageInput.msg = msg as unknown as RaftMessage<Cmd>;
        return feed(messageInput);
      }
      feed({ type: "message", from, msg: msg as unknown as RaftMessage<Cmd> });
    },
    isLeader: () => state.role === "leader",
    leaderId: () => state.leaderId,
    currentTerm: () => state.term,
    propose<Res>(cmd: Cmd, cb: (r: ProposeResult<Res>) => void): void {
      const id = nextId++;
      waiters.set(id, "propose", cb as (r: ProposeResult<unknown>) => void);
      feed({ type: "propose", id, cmd });
    },
    readBarrier(cb: (r: BarrierResult) => void): void {
      const id = nextId++;
      waiters.set(id, "read", cb);
      feed({ type: "read-index", id });
    },
  };
};
