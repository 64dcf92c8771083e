/**
 * The checker registry. Every checker listed here runs on every `lockstep run`;
 * results compose worst-wins. Checkers are pure: (history, ctx) -> CheckResult.
 */
import type { CheckContext, Checker, OnlineChecker } from "./types.js";
import { mutualExclusion } from "./mutual-exclusion.js";
import { BufferedChecker } from "./buffered.js";
import { OnlineMutualExclusion } from "./mutual-exclusion-online.js";
import { lostUpdates, OnlineLostUpdates } from "./lost-updates.js";
import { linearizability } from "./linearizability/index.js";
import { onlineLinearizability } from "./linearizability/online.js";
import { fencing, OnlineFencing } from "./fencing.js";
import { liveness, onlineLiveness } from "./liveness.js";
import { onlineReplicaAgreement, replicaAgreement } from "./replica-agreement.js";

export interface CheckerEntry {
  name: string;
  /** "safety" verdicts decide exit code 3; "liveness" decide exit code 4. */
  kind: "safety" | "liveness";
  description: string;
  check: Checker;
  /** The same checker over a stream, in bounded memory (types.ts OnlineChecker); absent: buffered (run-online.ts). */
  online?: (ctx: CheckContext) => OnlineChecker;
}

export const CHECKERS: CheckerEntry[] = [
  {
    name: "mutual-exclusion",
    kind: "safety",
    description: "no two clients hold one lock at overlapping true times",
    check: mutualExclusion,
    // Lease ends are for histories from elsewhere, judged in batch (lockstep's own record beliefs).
    online: (ctx) => (ctx.holdsEndAtLease ? new BufferedChecker("mutual-exclusion", mutualExclusion, ctx) : new OnlineMutualExclusion()),
  },
  {
    name: "lost-updates",
    kind: "safety",
    description: "the resource's final counter equals the critical sections that believed they ran",
    check: lostUpdates,
    online: () => new OnlineLostUpdates(),
  },
  // further checkers register below (one line each)
  {
    name: "linearizability",
    kind: "safety",
    description: "the lock ops are linearizable under ctx.model (default lease-lock with a TTL, else mutex)",
    check: linearizability,
    online: onlineLinearizability,
  },
  {
    name: "fencing",
    kind: "safety",
    description: "no resource accepts a write with a token lower than one it already accepted",
    check: fencing,
    online: () => new OnlineFencing(),
  },
  {
    name: "liveness",
    kind: "liveness",
    description: "after faults heal, waiters are granted within the bound; crashed holders' locks are freed",
    check: liveness,
    online: (ctx) => onlineLiveness(ctx),
  },
  {
    name: "replica-agreement",
    kind: "safety",
    description: "every replica's state machine holds the same state at each index it applied (Raft-backed designs)",
    check: replicaAgreement,
    online: onlineReplicaAgreement,
  },
];

export function checkerByName(name: string): CheckerEntry | undefined {
  return CHECKERS.find((c) => c.name === name);
}
