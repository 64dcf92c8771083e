import type { CompiledScenario, LockUnderTest } from "./types.js";
import type { FaultStep } from "../faults/types.js";
import { profileOf, type DesignFacts } from "../designs/index.js";

/** The lease an attack asks for where the client sets it, ms (short, so runs stay short). */
export const CLIENT_TTL_MS = 1000;

/**
 * What the lock's design declares about itself for these options (designs/profile.ts):
 * attacks ask it, never the design's name. Errors name the lock.
 */
export function profileOfLock(lock: LockUnderTest): DesignFacts {
  return profileOf(lock.design, lock.designOptions, `<lock ${lock.label}>`);
}

export function issuesFencingTokens(lock: LockUnderTest): boolean {
  return profileOfLock(lock).fencing;
}

/**
 * How long this lock lets a silent holder keep the lock, ms: the session timeout or
 * lease TTL the service keeps, else the TTL the attack asks for.
 */
export function leaseMsOf(lock: LockUnderTest): number {
  return profileOfLock(lock).serviceLeaseMs ?? CLIENT_TTL_MS;
}

/** How long this lock's client waits for a reply before giving up, ms (Infinity: no limit). */
export function requestTimeoutMsOf(lock: LockUnderTest): number {
  return profileOfLock(lock).requestTimeoutMs;
}

/** Milliseconds, whole: attacks state durations as multiples of the lease. */
export function timesLease(lock: LockUnderTest, factor: number): number {
  return Math.round(leaseMsOf(lock) * factor);
}

/**
 * The common frame: c1 (the holder) starts first and takes the lock; c2 (a waiter)
 * starts 10 ms later and polls for it. One critical section each, long waits so that
 * the waiter is still there when the lease lapses.
 */
export function baseScenario(lock: LockUnderTest, name: string, title: string, story: string): CompiledScenario {
  const leaseMs = leaseMsOf(lock);
  return {
    // One name for every lock: a run's random streams are seeded from name and seed, so
    // the lock under test and its reference meet the same schedule on the same seed.
    name: `attack-${name}`,
    title: `${title} [${lock.label}]`,
    story,
    design: lock.design,
    ...(lock.designOptions ? { designOptions: lock.designOptions } : {}),
    expect: "safe",
    seed: 1,
    durationMs: leaseMs * 6,
    clients: [
      { id: "c1", startMs: 0, opsMax: 1 },
      { id: "c2", startMs: 10, opsMax: 1 },
    ],
    workload: { locks: ["order:123"], ttlMs: leaseMs, waitMs: leaseMs * 4, workMs: 5, thinkMs: 0, thinkJitterMs: 0 },
    faults: [],
    challenge: { kind: "overlapping-belief" },
  };
}

/** The processes that serve this lock: a client's requests for it go to these. */
export function lockServersOf(lock: LockUnderTest): string[] {
  return [...profileOfLock(lock).lockServers];
}

/** The holder's links to every lock server cut both ways, `delayMs` after its grant (its link to the resource stays up). */
export function holderCutOff(lock: LockUnderTest, delayMs: number, durationMs: number, note: string): FaultStep {
  return {
    on: { process: "c1", f: "acquire", type: "ok", nth: 1 },
    delayMs,
    kind: "cut",
    links: lockServersOf(lock).flatMap((server): Array<[string, string]> => [
      [server, "c1"],
      ["c1", server],
    ]),
    durationMs,
    note,
  };
}
