import { PAPER_RULES, type RaftRules } from "./core/index.js";
import type { RaftBug } from "./api.js";

/**
 * The documented bug variants of the Raft core (docs/raft-bugs.md), planted from outside
 * it: each replaces one of the paper's rules. The regression suite switches them on to
 * show that the test named for each catches it.
 */
const VARIANTS: Record<RaftBug, Partial<RaftRules>> = {
  // A vote for any candidate, its log up to date or not (§5.4.1 dropped).
  voteWithoutUpToDateCheck: { voteLogOk: () => true },
  // An entry of an earlier term committed by counting replicas (Figure 8).
  commitPreviousTermByCounting: { commitCountable: () => true },
  // The term reaches the disk, the vote does not.
  votedForNotPersisted: { persistedVote: () => null },
  // AppendEntries from a stale term is taken.
  acceptStaleTermAppendEntries: { staleAppendRejected: () => false },
};

/** The rules a node follows with these bugs switched on (none: the paper's). */
export function rulesWithBugs(bugs: Partial<Record<RaftBug, boolean>> | undefined): RaftRules {
  let rules = PAPER_RULES;
  for (const bug of Object.keys(VARIANTS) as RaftBug[]) if (bugs?.[bug] === true) rules = { ...rules, ...VARIANTS[bug] };
  return rules;
}
