import type { Fields } from "../sim/validate.js";

/**
 * What must happen in a run for it to test the lock at all (checkers/challenge.ts judges
 * it from the history). A scenario states it in its optional `challenge` field; absent,
 * the default "overlapping-belief" applies. docs/scenarios.md describes each kind.
 */
export type ChallengeSpec =
  | { kind: "overlapping-belief" }
  | { kind: "expiry-handover" }
  | { kind: "waiter-served" }
  | { kind: "granted-during-release" }
  | { kind: "waiter-waited"; waitedMsMin?: number };

export const CHALLENGE_KINDS = ["overlapping-belief", "expiry-handover", "waiter-served", "granted-during-release", "waiter-waited"] as const;
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
