import type { PeerTable } from "./peer-table.js";

/**
 * Data of the pure Raft core: configuration, state, inputs, effects, wire messages.
 * Nothing here does I/O; `step` (core/step.ts) maps (state, input) to (state, effects).
 */

/** A log entry. `cmd: null` is a leader no-op (read barrier); it is never handed to the service. */
export interface Entry<Cmd> {
  readonly term: number;
  readonly cmd: Cmd | null;
}

export interface RaftConfig {
  id: string;
  /** Every server id, this one included, in a fixed order. */
  peers: readonly string[];
  electionTimeoutMsMin: number;
  electionTimeoutMsMax: number;
  heartbeatIntervalMs: number;
  /** Bound on entries per AppendEntries message (catch-up goes in batches). */
  entriesPerAppendMax: number;
  /**
   * Append a no-op when elected (etcd does; the 6.824 labs do not). Off by default: the
   * log then holds only commands; a read barrier appends a no-op lazily when the
   * leader has not yet committed an entry of its term (thesis §6.4).
   */
  noopOnElection: boolean;
  /** The paper's checks, as a policy: PAPER_RULES, or a bug variant planted from outside the core. */
  rules: RaftRules;
  /** The only randomness: a seeded uniform stream in [0, 1), for election timeouts. */
  random: () => number;
}

/**
 * The four checks of the paper that the regression suite's bug variants replace
 * (services/raft/variants.ts). The core calls them and knows no variant; PAPER_RULES
 * (core/step.ts) is Figure 2 and §5.4 as written.
 */
export interface RaftRules {
  /** §5.4.1: grant a vote only to a candidate whose log (its last index and term) is at least as up-to-date as ours. */
  voteLogOk(ownLastIndex: number, ownLastTerm: number, lastLogIndex: number, lastLogTerm: number): boolean;
  /** §5.4.2: an index of this leader's log, of term `termOfIndex`, may be committed by counting replicas. */
  commitCountable(termOfIndex: number, currentTerm: number): boolean;
  /** Figure 2: "Reply false if term < currentTerm" for AppendEntries (true: rejected). */
  staleAppendRejected(msgTerm: number, currentTerm: number): boolean;
  /** Figure 2: votedFor is persistent; the value that reaches the disk. */
  persistedVote(votedFor: string | null): string | null;
}

/** A node's reusable working memory (its step's effect collector, maybeCommit's match indexes): no protocol state. */
export interface CoreScratch {
  readonly out: unknown;
  matches: Float64Array;
}

/** What survives a crash: Figure 2's persistent state. */
export interface Persisted<Cmd> {
  term: number;
  votedFor: string | null;
  /** The entries after the snapshot (all of them when there is none). */
  log: readonly Entry<Cmd>[];
  /** §7: the last index and term the service's snapshot covers (absent: no snapshot). */
  snapshotIndex?: number;
  snapshotTerm?: number;
}

export type Role = "follower" | "candidate" | "leader";

export interface PendingRead {
  id: number;
  /** Heartbeat round that must be acknowledged by a majority (leadership confirmed). */
  seq: number;
  /** commitIndex when the leader knew it to be current; undefined until then. */
  index: number | undefined;
}

export interface RaftState<Cmd> {
  readonly cfg: RaftConfig;
  // Persistent (Figure 2).
  term: number;
  votedFor: string | null;
  /** log[i - snapshotIndex - 1] is the entry at index i (indexes start at 1). */
  log: Entry<Cmd>[];
  /** §7: the last index folded into the service's snapshot (0: none), and its term. Persistent. */
  snapshotIndex: number;
  snapshotTerm: number;
  /**
   * An index every server's log is known to hold, committed (the leader's lowest match
   * and commit index, passed on in AppendEntries): entries up to it are never needed
   * again from anyone, so a server may drop them once its snapshot covers them.
   */
  compactIndex: number;
  // Volatile.
  role: Role;
  leaderId: string | undefined;
  commitIndex: number;
  lastApplied: number;
  votes: Set<string>;
  // Leader only.
  /** By position in cfg.peers (PeerTable; reads like a Map). */
  nextIndex: PeerTable;
  matchIndex: PeerTable;
  /** Heartbeat round counter; followers echo it, so a leader knows who acknowledged what. */
  seq: number;
  ackedSeq: PeerTable;
  reads: PendingRead[];
  /**
   * The heartbeat round the pending reads last started (0: none this term). While a
   * majority has not acknowledged it, a new read waits for the next round instead of
   * starting its own (etcd's ReadIndex batching): one read round in flight at a time.
   */
  readRoundSeq: number;
  /** index → proposal id, for entries this leader appended in this term. */
  proposals: Map<number, number>;
  /** Whether a no-op of the current term has been appended (read barrier). */
  noopAppended: boolean;
  /** Working memory the core reuses across this node's steps (core/step.ts); no state of the protocol. */
  readonly scratch: CoreScratch;
}

export interface VoteRequest {
  type: "raft-vote";
  term: number;
  lastLogIndex: number;
  lastLogTerm: number;
}
export interface VoteResponse {
  type: "raft-vote-resp";
  term: number;
  granted: boolean;
}
export interface AppendRequest<Cmd> {
  type: "raft-append";
  term: number;
  prevLogIndex: number;
  prevLogTerm: number;
  entries: readonly Entry<Cmd>[];
  leaderCommit: number;
  seq: number;
  /** The leader's compactIndex (absent: 0). */
  compactIndex?: number;
}
export interface AppendResponse {
  type: "raft-append-resp";
  term: number;
  success: boolean;
  /** On success: index of the last entry known to match the leader's log. */
  matchIndex: number;
  /** On failure (fast backup, 6.824 style): term of the conflicting entry (0: log too short)... */
  conflictTerm: number;
  /** ...and the first index this follower holds of that term (or its log length + 1). */
  conflictIndex: number;
  seq: number;
}
export type RaftMessage<Cmd> = VoteRequest | VoteResponse | AppendRequest<Cmd> | AppendResponse;

export type TimerName = "election" | "heartbeat";

export type RaftInput<Cmd> =
  /** Boot or reboot from what was persisted (empty on first boot). */
  | { type: "restart"; persisted: Persisted<Cmd> }
  | { type: "message"; from: string; msg: RaftMessage<Cmd> }
  | { type: "election-timeout" }
  | { type: "heartbeat-timeout" }
  | { type: "propose"; id: number; cmd: Cmd }
  | { type: "read-index"; id: number }
  /** §7: the service's snapshot now covers the log through `index` (at most compactIndex and lastApplied): drop those entries. */
  | { type: "compact"; index: number };

export type ReplyResult = { ok: true } | { ok: false; error: "not-leader" | "lost-leadership" };

/**
 * Effects, in the order the adapter must execute them. `step` puts every persist first:
 * a message sent in a step may depend on the term, vote or entries of that step, and
 * must not leave before they are durable (Figure 2: "updated on stable storage before
 * responding to RPCs").
 */
export type RaftEffect<Cmd> =
  | { kind: "persist-hard-state"; term: number; votedFor: string | null }
  /** Truncate the durable log after fromIndex - 1, then append `entries`. */
  | { kind: "persist-log"; fromIndex: number; entries: readonly Entry<Cmd>[] }
  /** Make the snapshot through `index` (of `term`) durable, and drop the durable log's entries up to it. */
  | { kind: "persist-snapshot"; index: number; term: number }
  | { kind: "send"; to: string; msg: RaftMessage<Cmd> }
  /** (Re)arm the named timer; an armed timer of that name is cancelled first. */
  | { kind: "set-timer"; timer: TimerName; delayMs: number }
  | { kind: "cancel-timer"; timer: TimerName }
  /** A committed entry, in log order. `proposalId`: the propose input it answers. */
  | { kind: "apply"; index: number; term: number; cmd: Cmd | null; proposalId?: number }
  /** Answer to a propose (failures only: success is its apply) or a read-index input. */
  | { kind: "reply"; id: number; result: ReplyResult };

export interface StepResult<Cmd> {
  state: RaftState<Cmd>;
  effects: RaftEffect<Cmd>[];
}
