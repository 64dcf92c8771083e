import type { Compiled, LockUnderTest } from "./types.js";
import type { FaultStep } from "../faults/types.js";
import { baseScenario, issuesFencingTokens, profileOfLock, timesLease } from "./lease.js";

/** What the leader attacks share: the attack's own words, and the fault done to @leader. */
interface LeaderFault {
  name: string;
  title: string;
  story: string;
  kind: Extract<FaultStep["kind"], "crash" | "isolate">;
  /** How long the fault lasts, in leases. */
  leases: number;
  note: string;
  /** When it fires (default: a quarter of a lease after the holder's grant). */
  when?: Pick<FaultStep, "on" | "delayMs">;
  /** How long the holder works, in leases (default 0.75: past the election). */
  workLeases?: number;
  /** When the waiter comes, in leases from the start (default: 10 ms after the holder). */
  waiterStartLeases?: number;
}

/**
 * A fault on whichever server leads the lock service (by default a quarter of a lease
 * into the hold); the holder works (by default 0.75x the lease, past the election) and
 * checks before writing, a waiter waits. Refused where no leader is elected.
 */
export function compileLeaderFault(lock: LockUnderTest, a: LeaderFault): Compiled {
  const leader = profileOfLock(lock).leader;
  if ("none" in leader) return { ok: false, refusal: `no elected leader in ${lock.design}: ${leader.none}` };
  const s = baseScenario(lock, a.name, a.title, a.story);
  if (issuesFencingTokens(lock)) s.workload.fencing = true;
  Object.assign(s.workload, { workMs: timesLease(lock, a.workLeases ?? 0.75), validityCheck: "before-read-and-write" });
  if (a.waiterStartLeases !== undefined) s.clients[1]!.startMs = timesLease(lock, a.waiterStartLeases);
  s.durationMs = timesLease(lock, 6);
  s.challenge = { kind: "waiter-served" };
  s.faults.push({
    ...(a.when ?? { on: { process: "c1", f: "acquire", type: "ok", nth: 1 }, delayMs: timesLease(lock, 0.25) }),
    kind: a.kind,
    target: "@leader",
    durationMs: timesLease(lock, a.leases),
    note: a.note,
  });
  return { ok: true, scenario: s };
}
