import type { WorkTime } from "../sim/work-time.js";

/** What a scenario's clients do (harness/workload.ts runs it); a design may refuse a workload it cannot serve. */
export interface ClientSpec {
  id: string;
  startMs: number;
  /** Stop after this many acquisitions (default: run until the scenario's end). */
  opsMax?: number;
  /** This client's work time, instead of the workload's (a number or a distribution). */
  workMs?: WorkTime;
}

export interface WorkloadSpec {
  locks: string[];
  ttlMs: number;
  waitMs: number;
  /** Time between the read and the write of the critical section, ms, or a distribution drawn per hold. */
  workMs: WorkTime;
  /** Pause between iterations, ms, plus up to thinkJitterMs at random. */
  thinkMs: number;
  thinkJitterMs: number;
  /** Does the protected resource check fencing tokens? */
  fencing: boolean;
  /**
   * antirez's alternative to fencing: the read claims the resource with the grant's
   * random value, and a write is applied only while the resource still names that
   * value as its owner (check-and-set on a linearizable store). Works with any design.
   */
  ownerCheck: boolean;
  /** Socket timeout of the storage calls, ms. */
  resourceTimeoutMs: number;
  /** Extend the lease once in each critical section by this TTL (0: never). */
  extendTtlMs: number;
  /**
   * A watchdog's renewal: during the work, extend the lease by ttlMs every this many ms
   * (0: never). A renewal refused or unanswered ends the critical section, as a
   * watchdog's "lock lost" callback would.
   */
  renewEveryMs: number;
  /**
   * When the client asks its library whether it still holds the lock before acting:
   * "before-read" (default) once, before the critical section; "before-read-and-write"
   * again before the write (the using() example's `if (signal.aborted) throw`); "none":
   * never — it acts on whatever acquire returned (node-redlock v5 may return an expired lock).
   */
  validityCheck: ValidityCheck;
}

export const VALIDITY_CHECKS = ["before-read", "before-read-and-write", "none"] as const;
export type ValidityCheck = (typeof VALIDITY_CHECKS)[number];
