import type { Fields } from "../sim/validate.js";

/**
 * What must happen in a run for it to test the lock at all (checkers/challenge.ts judges
 * it from the history). A scenario states it in its optional `challenge` field; absent,
 * "derived" applies: a rule chosen from the faults the run shows. docs/scenarios.md describes each kind.
 */
export type ChallengeSpec =
  | { kind: "overlapping-belief" }
  | { kind: "expiry-handover" }
  | { kind: "waiter-served" }
  | { kind: "granted-during-release" }
  | { kind: "waiter-waited"; waitedMsMin?: number }
  | { kind: "client-fault-contended" }
  | { kind: "server-fault-during-hold" }
  /** The default when a scenario names none: a rule chosen from the faults the run shows (checkers/challenge-derived.ts). */
  | { kind: "derived" };

export const CHALLENGE_KINDS = [
  "overlapping-belief",
  "expiry-handover",
  "waiter-served",
  "granted-during-release",
  "waiter-waited",
  "client-fault-contended",
  "server-fault-during-hold",
  "derived",
] as const;
export type ChallengeKind = (typeof CHALLENGE_KINDS)[number];

/** The scenario's `challenge` field, validated: `{ "kind": ..., "waitedMsMin"?: ms }`. */
export function parseChallenge(f: Fields): ChallengeSpec | undefined {
  if (!f.has("challenge")) return undefined;
  const c = f.object("challenge");
  const kind = c.oneOf("kind", CHALLENGE_KINDS);
  if (kind !== "waiter-waited") {
    c.only(["kind"]);
    return { kind };
  }
  c.only(["kind", "waitedMsMin"]);
  const waitedMsMin = c.optNumber("waitedMsMin", { min: 0 });
  return waitedMsMin === undefined ? { kind } : { kind, waitedMsMin };
}
