import type { Message, ProcessContext } from "../../sim/simulation.js";

/**
 * The contract between the Raft core (services/raft/) and the services replicated on it
 * (designs/raft-zk/, designs/etcd-lease/). A service's server process owns one RaftHost,
 * hands it every message whose type starts with "raft-", and drives its own client
 * protocol through `propose` and `readBarrier`.
 *
 * The Raft core itself is a pure state machine (messages, timers, restarts in;
 * sends, timers, persists, applies out); `createRaftNode` is the adapter that runs
 * it in the simulator.
 */
export interface ProposeOk<Res> {
  ok: true;
  result: Res;
  /** Log index of the entry: unique and increasing, usable as a zxid / revision. */
  index: number;
  term: number;
}
export type ProposeResult<Res> = ProposeOk<Res> | { ok: false; error: "not-leader" | "lost-leadership" };
export type BarrierResult = { ok: true } | { ok: false; error: "not-leader" | "lost-leadership" };

export interface RaftHost<Cmd> {
  /** Feed a Raft protocol message (type starts with "raft-"). */
  handleRaftMessage(from: string, msg: Message): void;
  isLeader(): boolean;
  /** The leader this node believes in, if any (a hint for redirecting clients). */
  leaderId(): string | undefined;
  currentTerm(): number;
  /**
   * Append `cmd` to the log (leader only). `cb` runs once, when the entry is applied
   * on this node (with the state machine's result), or when it can no longer be
   * known to commit through this node (leadership lost).
   */
  propose<Res>(cmd: Cmd, cb: (r: ProposeResult<Res>) => void): void;
  /**
   * Linearizable read barrier (read index, Raft thesis §6.4): `cb({ok:true})` once this
   * node has confirmed it is still leader by a round of heartbeats acknowledged by a
   * majority, and has applied every entry committed when the barrier was asked.
   */
  readBarrier(cb: (r: BarrierResult) => void): void;
}

export interface RaftNodeOptions<Cmd> {
  /** Every server id of the cluster, this one included, in a fixed order. */
  peers: string[];
  electionTimeoutMsMin: number;
  electionTimeoutMsMax: number;
  heartbeatIntervalMs: number;
  /**
   * Apply a committed command to the service's state machine (deterministic). Called
   * in log order, exactly once per entry per incarnation; after a restart the state
   * machine is rebuilt by re-applying the log from index 1, or from the snapshot it was
   * restored from (`snapshot`). `at` is the
   * node's own object, rewritten for every apply: read it during the call, keep no
   * reference. `awaited`: a proposal of this node waits for the result; when false the
   * result is dropped, and the service may leave out what only an answer carries.
   */
  apply(cmd: Cmd, at: { readonly index: number; readonly term: number; readonly awaited: boolean }): unknown;
  /** Switchable, documented bugs (for the regression suite and scenarios to catch). */
  bugs?: Partial<Record<RaftBug, boolean>>;
  /** Bound on entries per AppendEntries message (catch-up goes in batches); default 64. */
  entriesPerAppendMax?: number;
  /**
   * §7 log compaction: a copy of the service's state machine as it stands (after the
   * last applied entry), which nothing changes afterwards. With `restore`, the node takes
   * one every `snapshotEveryEntries` applied entries and drops the log it covers once
   * every server holds that log; a restarted node restores the state from it and
   * re-applies only the entries after it. Without them the log is kept whole.
   */
  snapshot?(): unknown;
  /** Put the service's state machine back to a copy `snapshot` made (on restart; the copy is the disk's: copy it again). */
  restore?(state: unknown): void;
  /** Applied entries between snapshots; default 8192. */
  snapshotEveryEntries?: number;
  /**
   * Append a no-op entry on election (etcd style); default false (6.824 style: the log
   * holds only commands, and a read barrier appends a no-op only when needed). No-ops
   * are never passed to `apply`, so applied indexes may then have gaps.
   */
  noopOnElection?: boolean;
}

/** Bug variants of the Raft core; see docs/raft-bugs.md for what catches each. */
export type RaftBug = "voteWithoutUpToDateCheck" | "commitPreviousTermByCounting" | "votedForNotPersisted" | "acceptStaleTermAppendEntries";

export type CreateRaftNode = <Cmd>(ctx: ProcessContext, opts: RaftNodeOptions<Cmd>, restarted: boolean) => RaftHost<Cmd>;

/**
 * Whether a message type is the Raft protocol's (starts with "raft-"). The four types
 * the core sends are compared first: each is one literal, so a match is a pointer
 * compare, where startsWith was a builtin call on every message a server took.
 */
export function isRaftMessageType(type: string): boolean {
  return type === "raft-append" || type === "raft-append-resp" || type === "raft-vote" || type === "raft-vote-resp" || type.startsWith("raft-");
}
