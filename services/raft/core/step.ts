import { PeerTable, peerIndex } from "./peer-table.js";
import { firstIndexOfTerm, isUpToDate, lastIndex, lastIndexOfTerm, lastTerm, termAt } from "./log.js";
import type {
  AppendRequest,
  AppendResponse,
  CoreScratch,
  Entry,
  Persisted,
  RaftConfig,
  RaftEffect,
  RaftInput,
  RaftMessage,
  RaftRules,
  RaftState,
  StepResult,
  TimerName,
  VoteRequest,
  VoteResponse,
} from "./types.js";

/**
 * The Raft core as one deterministic function, after the paper's Figure 2 and etcd's
 * raft: `step(state, input) -> { state, effects }`. Roles swap step functions
 * (stepFollower / stepCandidate / stepLeader). No I/O, no clock, no host randomness:
 * time arrives as timeout inputs, randomness from `cfg.random`.
 *
 * Ownership: `step` takes ownership of `state` and may update it in place (as etcd's
 * raft does; copying the log on every message would make the core O(n) per step).
 * Callers that want to keep an old state use `cloneState` first.
 *
 * Effect order: every persist comes first, then sends, timers, applies and replies in
 * the order they arose. The adapter executes them in that order, so nothing leaves
 * this node before the term, vote and log it reflects are durable.
 */

/** Figure 2 and §5.4 as written: the rules every node follows unless a bug variant is planted. */
export const PAPER_RULES: RaftRules = Object.freeze({
  voteLogOk: (ownLastIndex: number, ownLastTerm: number, lastLogIndex: number, lastLogTerm: number) =>
    isUpToDate(ownLastIndex, ownLastTerm, lastLogIndex, lastLogTerm),
  commitCountable: (termOfIndex: number, currentTerm: number) => termOfIndex === currentTerm,
  staleAppendRejected: () => true,
  persistedVote: (votedFor: string | null) => votedFor,
});

/**
 * Collects one step's effects; persists are derived from dirty marks at the end. One
 * per node (CoreScratch), reset per step (the core is synchronous and never re-entered),
 * writing into the array the caller gives, so a step allocates no Out, effects array or
 * result of its own.
 */
class Out<Cmd> {
  hardStateDirty = false;
  /** Lowest log index written or truncated in this step (Infinity: none). */
  logFromIndex = Infinity;
  effects: RaftEffect<Cmd>[] = [];
  /** Effects written so far; the array is cut to this at the end (emptying it first would drop its storage). */
  count = 0;
  /**
   * The last AppendEntries built in this step, and the log's last index when it was built:
   * followers at the same point get the same message object (nothing writes a message
   * in flight; the network already delivers one object twice for a duplicate).
   */
  lastAppend: AppendRequest<Cmd> | undefined = undefined;
  lastAppendLastIndex = 0;
  reset(effects: RaftEffect<Cmd>[]): this {
    this.hardStateDirty = false;
    this.logFromIndex = Infinity;
    this.effects = effects;
    this.count = 0;
    this.lastAppend = undefined;
    return this;
  }
  push(e: RaftEffect<Cmd>): void {
    this.effects[this.count++] = e;
  }
  /**
   * A send, in an object the array held from the step before if one was a send (so for a
   * timer below): the two commonest effects, one each per AppendEntries a follower takes,
   * rewritten instead of made (see stepInto on reuse).
   */
  send(to: string, msg: RaftMessage<Cmd>): void {
    const e = this.spare("send");
    if (e !== undefined) {
      e.to = to;
      e.msg = msg;
      this.count++;
    } else this.effects[this.count++] = { kind: "send", to, msg };
  }
  setTimer(timer: TimerName, delayMs: number): void {
    const e = this.spare("set-timer");
    if (e !== undefined) {
      e.timer = timer;
      e.delayMs = delayMs;
      this.count++;
    } else this.effects[this.count++] = { kind: "set-timer", timer, delayMs };
  }
  /**
   * An effect of `kind` past the ones written so far (the step before's, free to reuse),
   * moved into the next slot; undefined if there is none. A scan: the step before's
   * persists came first, so its sends are not where this step's go.
   */
  private spare<K extends "send" | "set-timer">(kind: K): Extract<RaftEffect<Cmd>, { kind: K }> | undefined {
    const fx = this.effects;
    const at = this.count;
    for (let i = at; i < fx.length; i++) {
      const e = fx[i]!;
      if (e.kind === kind) {
        fx[i] = fx[at]!;
        fx[at] = e;
        return e as Extract<RaftEffect<Cmd>, { kind: K }>;
      }
    }
    return undefined;
  }
}

function newScratch(): CoreScratch {
  return { out: new Out<unknown>(), matches: new Float64Array(8) };
}

export function quorum(cfg: RaftConfig): number {
  return Math.floor(cfg.peers.length / 2) + 1;
}

/** A node that has never run: term 0, no vote, empty log, follower. Feed it a restart. */
export function initialState<Cmd>(cfg: RaftConfig): RaftState<Cmd> {
  return {
    cfg,
    term: 0,
    votedFor: null,
    log: [],
    snapshotIndex: 0,
    snapshotTerm: 0,
    compactIndex: 0,
    role: "follower",
    leaderId: undefined,
    commitIndex: 0,
    lastApplied: 0,
    votes: new Set(),
    nextIndex: new PeerTable(cfg.peers),
    matchIndex: new PeerTable(cfg.peers),
    seq: 0,
    ackedSeq: new PeerTable(cfg.peers),
    reads: [],
    readRoundSeq: 0,
    proposals: new Map(),
    noopAppended: false,
    scratch: newScratch(),
  };
}

/** A deep enough copy for tests that compare states across steps (entries are immutable). */
export function cloneState<Cmd>(s: RaftState<Cmd>): RaftState<Cmd> {
  return {
    ...s,
    log: [...s.log],
    votes: new Set(s.votes),
    nextIndex: s.nextIndex.clone(),
    matchIndex: s.matchIndex.clone(),
    ackedSeq: s.ackedSeq.clone(),
    reads: s.reads.map((r) => ({ ...r })),
    proposals: new Map(s.proposals),
  };
}

export function step<Cmd>(state: RaftState<Cmd>, input: RaftInput<Cmd>): StepResult<Cmd> {
  const effects: RaftEffect<Cmd>[] = [];
  return { state: stepInto(state, input, effects), effects };
}

/**
 * `step`, with the effects written into `effects` (emptied first) rather than a fresh
 * array, and the new state returned: for an adapter that executes one step's effects
 * before it takes the next input, and so can keep one array for all of them. A send or
 * set-timer effect the array held from the step before may be rewritten in place for
 * this step's: the caller is done with a step's effects when it steps again into the
 * same array (step, with a fresh array, makes every effect new).
 */
export function stepInto<Cmd>(state: RaftState<Cmd>, input: RaftInput<Cmd>, effects: RaftEffect<Cmd>[]): RaftState<Cmd> {
  const out = (state.scratch.out as Out<Cmd>).reset(effects);
  let s = state;
  switch (input.type) {
    case "restart":
      s = restart(s.cfg, input.persisted, out);
      break;
    case "message":
      onMessage(s, out, input.from, input.msg);
      break;
    case "election-timeout":
      // A leader's election timer is cancelled; a late firing is ignored.
      if (s.role !== "leader") becomeCandidate(s, out);
      break;
    case "heartbeat-timeout":
      if (s.role === "leader") {
        broadcastAppend(s, out);
        out.setTimer("heartbeat", s.cfg.heartbeatIntervalMs);
      }
      break;
    case "propose":
      propose(s, out, input.id, input.cmd);
      break;
    case "read-index":
      readIndex(s, out, input.id);
      break;
    case "compact":
      compact(s, out, input.index);
      break;
  }
  // Slots past count hold the last step's effects: popped (setting length is a runtime
  // call; pop is inline, and a step leaves only a few behind).
  while (effects.length > out.count) effects.pop();
  finish(s, out);
  // Dropped, so the scratch holds no caller's array or message between steps.
  out.effects = NO_EFFECTS as RaftEffect<Cmd>[];
  out.lastAppend = undefined;
  return s;
}

/** What the scratch Out points at between steps: never written (a step resets it first). */
const NO_EFFECTS: readonly RaftEffect<never>[] = Object.freeze([]);

function finish<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>): void {
  // Most steps (acknowledgements, heartbeats answered) persist nothing.
  if (!out.hardStateDirty && out.logFromIndex === Infinity) return;
  const hard: RaftEffect<Cmd> | undefined = out.hardStateDirty
    ? { kind: "persist-hard-state", term: s.term, votedFor: s.cfg.rules.persistedVote(s.votedFor) }
    : undefined;
  const log: RaftEffect<Cmd> | undefined =
    out.logFromIndex !== Infinity
      ? { kind: "persist-log", fromIndex: out.logFromIndex, entries: s.log.slice(out.logFromIndex - 1 - s.snapshotIndex) }
      : undefined;
  // Persists first, hard state before log: this step's effects move up by one or two
  // in a loop (unshift was a builtin call on every step that persists).
  const fx = out.effects;
  const k = hard !== undefined && log !== undefined ? 2 : 1;
  for (let i = fx.length - 1; i >= 0; i--) fx[i + k] = fx[i]!;
  if (k === 2) {
    fx[0] = hard!;
    fx[1] = log!;
  } else fx[0] = (hard ?? log)!;
}

function restart<Cmd>(cfg: RaftConfig, p: Persisted<Cmd>, out: Out<Cmd>): RaftState<Cmd> {
  // Figure 2: currentTerm, votedFor and log[] are persistent; everything else restarts
  // from zero (commitIndex is relearned from the leader).
  const s = initialState<Cmd>(cfg);
  s.term = p.term;
  s.votedFor = p.votedFor;
  s.log = [...p.log];
  // §7: the snapshot's entries are committed and applied (the adapter restored the
  // service from it), and every server's log held them when they were dropped.
  s.snapshotIndex = s.commitIndex = s.lastApplied = s.compactIndex = p.snapshotIndex ?? 0;
  s.snapshotTerm = p.snapshotTerm ?? 0;
  resetElectionTimer(s, out);
  return s;
}

/** The last index of the log, the snapshot's included. */
function lastOf<Cmd>(s: RaftState<Cmd>): number {
  return lastIndex(s.log, s.snapshotIndex);
}

/** The term of the entry at `index` (the snapshot's own index included; 0 below it). */
function termOf<Cmd>(s: RaftState<Cmd>, index: number): number {
  return termAt(s.log, index, s.snapshotIndex, s.snapshotTerm);
}

function lastTermOf<Cmd>(s: RaftState<Cmd>): number {
  return lastTerm(s.log, s.snapshotTerm);
}

/**
 * §7 log compaction: the service's snapshot covers the log through `index`, which every
 * server holds (compactIndex) and this one has applied; those entries go. No server
 * needs them from another again, so there is no InstallSnapshot: a server that is
 * behind (down, cut off) holds every other's compaction back until it catches up.
 */
function compact<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>, index: number): void {
  if (index <= s.snapshotIndex || index > s.compactIndex || index > s.lastApplied) return;
  s.snapshotTerm = termOf(s, index);
  s.log = s.log.slice(index - s.snapshotIndex);
  s.snapshotIndex = index;
  out.push({ kind: "persist-snapshot", index, term: s.snapshotTerm });
}

// --- roles ---

function resetElectionTimer<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>): void {
  // §5.2: "Raft uses randomized election timeouts ... chosen randomly from a fixed interval".
  const { electionTimeoutMsMin: lo, electionTimeoutMsMax: hi } = s.cfg;
  out.setTimer("election", lo + Math.floor(s.cfg.random() * (hi - lo + 1)));
}

function becomeFollower<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>, term: number, leader: string | undefined): void {
  const wasLeader = s.role === "leader";
  if (term > s.term) {
    s.term = term;
    s.votedFor = null;
    out.hardStateDirty = true;
  }
  if (wasLeader) {
    failPending(s, out);
    out.push({ kind: "cancel-timer", timer: "heartbeat" });
    // A leader has no election timer running; a candidate keeps the one it has.
    resetElectionTimer(s, out);
  }
  s.role = "follower";
  s.leaderId = leader;
  s.votes.clear();
}

function becomeCandidate<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>): void {
  // §5.2: "increment currentTerm, vote for self, reset election timer, send RequestVote".
  s.term++;
  s.votedFor = s.cfg.id;
  out.hardStateDirty = true;
  s.role = "candidate";
  s.leaderId = undefined;
  s.votes = new Set([s.cfg.id]);
  resetElectionTimer(s, out);
  const req: VoteRequest = { type: "raft-vote", term: s.term, lastLogIndex: lastOf(s), lastLogTerm: lastTermOf(s) };
  for (const p of s.cfg.peers) if (p !== s.cfg.id) out.send(p, req);
  if (s.votes.size >= quorum(s.cfg)) becomeLeader(s, out);
}

function becomeLeader<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>): void {
  s.role = "leader";
  s.leaderId = s.cfg.id;
  s.nextIndex = new PeerTable(s.cfg.peers);
  s.matchIndex = new PeerTable(s.cfg.peers);
  s.ackedSeq = new PeerTable(s.cfg.peers);
  s.reads = [];
  s.readRoundSeq = 0;
  s.proposals = new Map();
  s.noopAppended = false;
  const peers = s.cfg.peers;
  for (let i = 0; i < peers.length; i++) {
    if (peers[i] === s.cfg.id) continue;
    s.nextIndex.setAt(i, lastOf(s) + 1);
    s.matchIndex.setAt(i, 0);
  }
  out.push({ kind: "cancel-timer", timer: "election" });
  if (s.cfg.noopOnElection) appendNoop(s, out);
  // Figure 2: "Upon election: send initial empty AppendEntries RPCs (heartbeat) to each server".
  broadcastAppend(s, out);
  out.setTimer("heartbeat", s.cfg.heartbeatIntervalMs);
  maybeCommit(s, out);
}

function failPending<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>): void {
  for (const id of s.proposals.values()) out.push({ kind: "reply", id, result: { ok: false, error: "lost-leadership" } });
  for (const r of s.reads) out.push({ kind: "reply", id: r.id, result: { ok: false, error: "lost-leadership" } });
  s.proposals = new Map();
  s.reads = [];
}

// --- messages ---

function onMessage<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>, from: string, m: RaftMessage<Cmd>): void {
  // Only cluster members count towards votes and read quorums.
  if (!isOtherPeer(s.cfg, from)) return;
  if (m.term > s.term) {
    // Figure 2: "If RPC request or response contains term T > currentTerm: set
    // currentTerm = T, convert to follower".
    becomeFollower(s, out, m.term, m.type === "raft-append" ? from : undefined);
  } else if (m.term < s.term) {
    const staleAccepted = m.type === "raft-append" && !s.cfg.rules.staleAppendRejected(m.term, s.term);
    if (!staleAccepted) {
      // Requests are answered so that the stale sender learns the newer term.
      if (m.type === "raft-vote") out.send(from, voteResp(s, false));
      else if (m.type === "raft-append") out.send(from, appendResp(s, false, 0, 0, 0, m.seq));
      return;
    }
  }
  switch (s.role) {
    case "follower":
      return stepFollower(s, out, from, m);
    case "candidate":
      return stepCandidate(s, out, from, m);
    case "leader":
      return stepLeader(s, out, from, m);
  }
}

/** Whether `from` is a member of the cluster other than this node (on every message: the core's hottest line). */
function isOtherPeer(cfg: RaftConfig, from: string): boolean {
  return from !== cfg.id && peerIndex(cfg.peers, from) >= 0;
}

function stepFollower<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>, from: string, m: RaftMessage<Cmd>): void {
  if (m.type === "raft-vote") handleVote(s, out, from, m);
  else if (m.type === "raft-append") handleAppend(s, out, from, m);
  // Responses are for candidates and leaders: a follower drops them.
}

function stepCandidate<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>, from: string, m: RaftMessage<Cmd>): void {
  if (m.type === "raft-vote") handleVote(s, out, from, m);
  else if (m.type === "raft-vote-resp") {
    if (m.granted) s.votes.add(from);
    if (s.votes.size >= quorum(s.cfg)) becomeLeader(s, out);
  } else if (m.type === "raft-append") {
    // Figure 2: "If AppendEntries RPC received from new leader: convert to follower".
    becomeFollower(s, out, s.term, from);
    handleAppend(s, out, from, m);
  }
}

function stepLeader<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>, from: string, m: RaftMessage<Cmd>): void {
  if (m.type === "raft-vote") handleVote(s, out, from, m);
  else if (m.type === "raft-append-resp") handleAppendResponse(s, out, from, m);
  else if (m.type === "raft-append" && m.term < s.term) {
    // Reachable only under rules that accept a stale-term append: the deposed leader's
    // message is taken as coming from the leader of our term.
    becomeFollower(s, out, s.term, from);
    handleAppend(s, out, from, m);
  }
  // An AppendEntries of our own term from another leader would break Election Safety: ignored.
}

function voteResp<Cmd>(s: RaftState<Cmd>, granted: boolean): VoteResponse {
  return { type: "raft-vote-resp", term: s.term, granted };
}

function appendResp<Cmd>(s: RaftState<Cmd>, success: boolean, matchIndex: number, conflictTerm: number, conflictIndex: number, seq: number): AppendResponse {
  return { type: "raft-append-resp", term: s.term, success, matchIndex, conflictTerm, conflictIndex, seq };
}

function handleVote<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>, from: string, m: VoteRequest): void {
  // Figure 2: "If votedFor is null or candidateId, and candidate's log is at least as
  // up-to-date as receiver's log, grant vote".
  const canVote = s.votedFor === null || s.votedFor === from;
  const upToDate = s.cfg.rules.voteLogOk(lastOf(s), lastTermOf(s), m.lastLogIndex, m.lastLogTerm);
  const granted = canVote && upToDate;
  if (granted) {
    if (s.votedFor !== from) {
      s.votedFor = from;
      out.hardStateDirty = true;
    }
    resetElectionTimer(s, out);
  }
  out.send(from, voteResp(s, granted));
}

function handleAppend<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>, from: string, m: AppendRequest<Cmd>): void {
  s.leaderId = from;
  resetElectionTimer(s, out);
  if (m.compactIndex !== undefined && m.compactIndex > s.compactIndex) s.compactIndex = m.compactIndex;
  const base = s.snapshotIndex;
  // Entries at or below our snapshot are committed, so they match the leader's: skipped.
  const skip = m.prevLogIndex < base ? Math.min(base - m.prevLogIndex, m.entries.length) : 0;
  const prev = m.prevLogIndex + skip;
  // Figure 2: "Reply false if log doesn't contain an entry at prevLogIndex whose term
  // matches prevLogTerm". The conflict hint lets the leader skip a term at a time.
  if (prev > lastOf(s)) {
    out.send(from, appendResp(s, false, 0, 0, lastOf(s) + 1, m.seq));
    return;
  }
  const t = termOf(s, prev);
  if (prev > base && t !== m.prevLogTerm) {
    out.send(from, appendResp(s, false, 0, t, firstIndexOfTerm(s.log, t, prev, base, s.snapshotTerm), m.seq));
    return;
  }
  // "If an existing entry conflicts with a new one (same index but different terms),
  // delete the existing entry and all that follow it." Only on conflict: a delayed,
  // shorter AppendEntries must not cut entries a later one added.
  let i = skip;
  for (; i < m.entries.length; i++) {
    const idx = m.prevLogIndex + 1 + i;
    if (idx > lastOf(s)) break;
    if (s.log[idx - base - 1]!.term !== m.entries[i]!.term) {
      s.log.length = idx - base - 1;
      break;
    }
  }
  if (i < m.entries.length) {
    out.logFromIndex = Math.min(out.logFromIndex, m.prevLogIndex + 1 + i);
    for (; i < m.entries.length; i++) s.log.push(m.entries[i]!);
  }
  const match = m.prevLogIndex + m.entries.length;
  // "If leaderCommit > commitIndex, set commitIndex = min(leaderCommit, index of last new entry)".
  const commit = Math.min(m.leaderCommit, match);
  if (commit > s.commitIndex) {
    s.commitIndex = commit;
    applyCommitted(s, out);
  }
  out.send(from, appendResp(s, true, match, 0, 0, m.seq));
}

function handleAppendResponse<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>, from: string, m: AppendResponse): void {
  // The sender's slot in the per-peer tables, found once (onMessage let only members through).
  const pi = s.nextIndex.indexOf(from);
  // Any response of our term acknowledges our leadership for the round it echoes.
  if (m.seq > s.ackedSeq.at(pi, 0)) s.ackedSeq.setAt(pi, m.seq);
  const match = s.matchIndex.at(pi, 0);
  const next = s.nextIndex.at(pi, lastOf(s) + 1);
  if (m.success) {
    let newMatch = match;
    if (m.matchIndex > match) {
      newMatch = m.matchIndex;
      s.matchIndex.setAt(pi, newMatch);
      maybeCommit(s, out);
    }
    let newNext = next;
    if (next < newMatch + 1) {
      newNext = newMatch + 1;
      s.nextIndex.setAt(pi, newNext);
    }
    // Entries appended while earlier ones were in flight, or beyond a batch bound.
    if (newNext <= lastOf(s)) sendAppend(s, out, from, pi);
  } else {
    // Fast backup: skip the follower's whole conflicting term, or to its log's end.
    let to = m.conflictIndex;
    if (m.conflictTerm > 0) {
      const last = lastIndexOfTerm(s.log, m.conflictTerm, s.snapshotIndex, s.snapshotTerm);
      if (last > 0) to = last + 1;
    }
    // Never below our snapshot: every server holds those entries (compactIndex).
    to = Math.max(match + 1, s.snapshotIndex + 1, Math.min(to, lastOf(s) + 1));
    // A stale rejection (the follower has caught up since) would only move us forward: ignore.
    if (to < next) {
      s.nextIndex.setAt(pi, to);
      sendAppend(s, out, from, pi);
    }
  }
  checkReads(s, out);
}

// --- leader replication ---

/** The entries of every empty AppendEntries (a heartbeat): shared, never written. */
const NO_ENTRIES: readonly Entry<never>[] = Object.freeze([]);

/** `pi`: the peer's position in cfg.peers (its slot in the per-peer tables). */
function sendAppend<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>, peer: string, pi: number): void {
  const prev = s.nextIndex.at(pi, NaN) - 1;
  // Every way nextIndex is set keeps it past the snapshot (see compact): a bug, not a case.
  if (prev < s.snapshotIndex) throw new Error(`raft: append to ${peer} from index ${prev + 1}, below the snapshot at ${s.snapshotIndex}`);
  let msg = out.lastAppend;
  // The same message as the peer before, if nothing it carries has moved since.
  if (
    msg === undefined ||
    msg.prevLogIndex !== prev ||
    msg.term !== s.term ||
    msg.leaderCommit !== s.commitIndex ||
    msg.seq !== s.seq ||
    msg.compactIndex !== s.compactIndex ||
    out.lastAppendLastIndex !== lastOf(s)
  ) {
    const base = s.snapshotIndex;
    const entries = prev >= lastOf(s) ? NO_ENTRIES : s.log.slice(prev - base, prev - base + s.cfg.entriesPerAppendMax);
    msg = {
      type: "raft-append",
      term: s.term,
      prevLogIndex: prev,
      prevLogTerm: termOf(s, prev),
      entries,
      leaderCommit: s.commitIndex,
      seq: s.seq,
      compactIndex: s.compactIndex,
    };
    out.lastAppend = msg;
    out.lastAppendLastIndex = lastOf(s);
  }
  out.send(peer, msg);
  // Optimistic: assume delivery; a rejection (or the next heartbeat's) moves it back.
  s.nextIndex.setAt(pi, prev + msg.entries.length + 1);
}

function broadcastAppend<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>): void {
  s.seq++;
  const peers = s.cfg.peers;
  for (let i = 0; i < peers.length; i++) if (peers[i] !== s.cfg.id) sendAppend(s, out, peers[i]!, i);
}

function appendLocal<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>, e: Entry<Cmd>): number {
  s.log.push(e);
  const index = lastOf(s);
  out.logFromIndex = Math.min(out.logFromIndex, index);
  return index;
}

function appendNoop<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>): void {
  appendLocal(s, out, { term: s.term, cmd: null });
  s.noopAppended = true;
}

function maybeCommit<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>): void {
  // The largest index stored on a majority (the leader counts with its whole log).
  const peers = s.cfg.peers;
  // The first peers.length slots of the node's scratch, reused per acknowledgement.
  if (s.scratch.matches.length < peers.length) s.scratch.matches = new Float64Array(peers.length * 2);
  const matches = s.scratch.matches;
  const count = peers.length;
  for (let i = 0; i < count; i++) {
    const p = peers[i]!;
    matches[i] = p === s.cfg.id ? lastOf(s) : s.matchIndex.at(i, 0);
  }
  // Ascending; the quorum-th largest is at length - quorum. Insertion sort: a cluster
  // has a handful of servers, and the typed array's sort is a builtin call per ack.
  for (let i = 1; i < count; i++) {
    const v = matches[i]!;
    let j = i - 1;
    for (; j >= 0 && matches[j]! > v; j--) matches[j + 1] = matches[j]!;
    matches[j + 1] = v;
  }
  const n = matches[count - quorum(s.cfg)]!;
  // §5.4.2 / Figure 8: "Raft never commits log entries from previous terms by counting
  // replicas. Only log entries from the leader's current term are committed by counting".
  const countable = s.cfg.rules.commitCountable(termOf(s, n), s.term);
  if (n > s.commitIndex && countable) {
    s.commitIndex = n;
    applyCommitted(s, out);
    checkReads(s, out);
  }
  // Every server holds the log up to the lowest match (ascending: matches[0]), committed up to commitIndex.
  const held = Math.min(matches[0]!, s.commitIndex);
  if (held > s.compactIndex) s.compactIndex = held;
}

function applyCommitted<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>): void {
  // Figure 2: "If commitIndex > lastApplied: increment lastApplied, apply log[lastApplied]".
  const upTo = Math.min(s.commitIndex, lastOf(s));
  while (s.lastApplied < upTo) {
    const index = ++s.lastApplied;
    const e = s.log[index - s.snapshotIndex - 1]!;
    const proposalId = s.proposals.get(index);
    if (proposalId !== undefined) {
      s.proposals.delete(index);
      out.push({ kind: "apply", index, term: e.term, cmd: e.cmd, proposalId });
    } else {
      out.push({ kind: "apply", index, term: e.term, cmd: e.cmd });
    }
  }
}

// --- client inputs ---

function propose<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>, id: number, cmd: Cmd): void {
  if (s.role !== "leader") {
    out.push({ kind: "reply", id, result: { ok: false, error: "not-leader" } });
    return;
  }
  const index = appendLocal(s, out, { term: s.term, cmd });
  s.proposals.set(index, id);
  // Followers that are caught up get it now; the others are mid-pipeline and get it
  // with the response to what they have in flight, or with the next heartbeat.
  const peers = s.cfg.peers;
  for (let i = 0; i < peers.length; i++) if (peers[i] !== s.cfg.id && s.nextIndex.at(i, NaN) === index) sendAppend(s, out, peers[i]!, i);
  maybeCommit(s, out);
}

function readIndex<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>, id: number): void {
  if (s.role !== "leader") {
    out.push({ kind: "reply", id, result: { ok: false, error: "not-leader" } });
    return;
  }
  // Thesis §6.4: the leader's commitIndex is only known current once it has committed an
  // entry of its own term; until then the read waits (and a no-op gets it there).
  if (lastTermOf(s) !== s.term && !s.noopAppended) appendNoop(s, out);
  const committedInTerm = termOf(s, s.commitIndex) === s.term;
  const index = committedInTerm ? s.commitIndex : undefined;
  if (readRoundInFlight(s)) {
    // A round that started before this read cannot vouch for it: it waits for the next
    // one (any round from s.seq + 1 on starts after it arrived), shared with every read
    // that arrives meanwhile.
    s.reads.push({ id, seq: s.seq + 1, index });
    return;
  }
  // A fresh heartbeat round: a majority acknowledging it proves we were still leader
  // after the read arrived.
  startReadRound(s, out);
  s.reads.push({ id, seq: s.seq, index });
  maybeCommit(s, out);
  checkReads(s, out);
}

function startReadRound<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>): void {
  broadcastAppend(s, out);
  s.readRoundSeq = s.seq;
}

/** How many servers (the leader included) have acknowledged round `seq` or a later one. */
function acksOf<Cmd>(s: RaftState<Cmd>, seq: number): number {
  return 1 + s.ackedSeq.countAtLeast(seq); // the leader itself, and the peers
}

function readRoundInFlight<Cmd>(s: RaftState<Cmd>): boolean {
  return s.readRoundSeq > 0 && acksOf(s, s.readRoundSeq) < quorum(s.cfg);
}

function checkReads<Cmd>(s: RaftState<Cmd>, out: Out<Cmd>): void {
  if (s.reads.length === 0 || s.role !== "leader") return;
  const committedInTerm = termOf(s, s.commitIndex) === s.term;
  const q = quorum(s.cfg);
  // Compacted in place (answered reads leave, the rest keep their order): no array per ack.
  const reads = s.reads;
  let kept = 0;
  let queued = false;
  // Reads wait in rounds (many share a seq): the acknowledgements are counted once a round.
  let countedSeq = NaN;
  let acked = false;
  for (let i = 0; i < reads.length; i++) {
    const r = reads[i]!;
    if (r.index === undefined && committedInTerm) r.index = s.commitIndex;
    if (r.seq !== countedSeq) {
      countedSeq = r.seq;
      acked = acksOf(s, r.seq) >= q;
    }
    if (acked && r.index !== undefined && s.lastApplied >= r.index) {
      out.push({ kind: "reply", id: r.id, result: { ok: true } });
    } else {
      reads[kept++] = r;
      if (r.seq > s.seq) queued = true;
    }
  }
  reads.length = kept;
  // The round in flight is done: the reads that waited for the next one start it now
  // (unless a heartbeat round after them has started already: then r.seq <= s.seq).
  if (queued && !readRoundInFlight(s)) startReadRound(s, out);
}
