/**
 * The checker registry. Every checker listed here runs on every `lockstep run`;
 * results compose worst-wins. Checkers are pure: (history, ctx) -> CheckResult.
 */
import type { Checker } from "./types.js";
import { mutualExclusion } from "./mutual-exclusion.js";
import { lostUpdates } from "./lost-updates.js";
import { linearizability } from "./linearizability/index.js";
import { fencing } from "./fencing.js";
import { liveness } from "./liveness.js";
import { replicaAgreement } from "./replica-agreement.js";

export interface CheckerEntry {
  name: string;
  /** "safety" verdicts decide exit code 3; "liveness" decide exit code 4. */
  kind: "safety" | "liveness";
  description: string;
  check: Checker;
}

export const CHECKERS: CheckerEntry[] = [
  {
    name: "mutual-exclusion",
    kind: "safety",
    description: "no two clients hold one lock at overlapping true times",
    check: mutualExclusion,
  },
  {
    name: "lost-updates",
    kind: "safety",
    description: "the resource's final counter equals the critical sections that believed they ran",
    check: lostUpdates,
  },
  // further checkers register below (one line each)
  {
    name: "linearizability",
    kind: "safety",
    description: "the lock ops are linearizable under ctx.model (default lease-lock with a TTL, else mutex)",
    check: linearizability,
  },
  { name: "fencing", kind: "safety", description: "no resource accepts a write with a token lower than one it already accepted", check: fencing },
  {
    name: "liveness",
    kind: "liveness",
    description: "after faults heal, waiters are granted within the bound; crashed holders' locks are freed",
    check: liveness,
  },
  {
    name: "replica-agreement",
    kind: "safety",
    description: "every replica's state machine holds the same state at each index it applied (Raft-backed designs)",
    check: replicaAgreement,
  },
];

export function checkerByName(name: string): CheckerEntry | undefined {
  return CHECKERS.find((c) => c.name === name);
}
