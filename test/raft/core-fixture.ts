/**
 * A three-server Raft core config and a booted state for unit checks of the core's
 * step function (core-units, core-mutants): fixed timing, random() fixed at 0.5.
 */
import { initialState, PAPER_RULES, step } from "../../services/raft/core/step.js";
import type { Entry, RaftConfig, RaftEffect, RaftState } from "../../services/raft/core/types.js";

export type Cmd = string;

export function cfg(over: Partial<RaftConfig> = {}): RaftConfig {
  return {
    id: "n1",
    peers: ["n1", "n2", "n3"],
    electionTimeoutMsMin: 150,
    electionTimeoutMsMax: 300,
    heartbeatIntervalMs: 50,
    entriesPerAppendMax: 64,
    noopOnElection: false,
    rules: PAPER_RULES,
    random: () => 0.5,
    ...over,
  };
}

/** A server restarted from this disk: its state and the effects of the restart. */
export function boot(c: RaftConfig, p: { term?: number; votedFor?: string | null; log?: Entry<Cmd>[] } = {}): { s: RaftState<Cmd>; fx: RaftEffect<Cmd>[] } {
  const r = step(initialState<Cmd>(c), { type: "restart", persisted: { term: p.term ?? 0, votedFor: p.votedFor ?? null, log: p.log ?? [] } });
  return { s: r.state, fx: r.effects };
}
