/** Exit codes of the `lockstep` command; safety and liveness are told apart, as TigerBeetle does. */
export const EXIT = {
  ok: 0,
  /** lockstep itself failed (a bug): the message says so. */
  internal: 1,
  /** Bad flags, unknown names, malformed scenario or history files. */
  badInput: 2,
  /** A safety checker found a violation (double holder, lost update, non-linearizable history). */
  safetyViolation: 3,
  /** Safe, but a liveness checker found a lock not granted within its bound. */
  livenessViolation: 4,
  /** No checker found a violation but at least one could not decide (search budget hit). */
  unknown: 5,
  /** The outcome did not match the scenario's `expect` (with --ok-if-expected). */
  unexpected: 6,
  /** The run was stopped: library code left the simulation, or used what it does not model. */
  stopped: 7,
  /** No checker failed, but the run never challenged the lock (checkers/challenge.ts): "safe" would mean nothing. */
  notChallenged: 8,
  /** Interrupted (SIGINT/SIGTERM), as shells report 128 + SIGINT; a sweep says how to resume. */
  interrupted: 130,
} as const;
