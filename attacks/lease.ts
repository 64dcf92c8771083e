import type { CompiledScenario, LockUnderTest } from "./types.js";
import type { FaultStep } from "../faults/types.js";

/** The lease an attack on a Redis-family lock asks for, ms (short, so runs stay short). */
export const REDIS_TTL_MS = 1000;
/** The Raft designs' session/lease default (services/raft-service/options.ts). */
const RAFT_SESSION_MS_DEFAULT = 4000;

const RAFT_DESIGNS = new Set(["raft-zk", "etcd-lease"]);

export function isRaftDesign(lock: LockUnderTest): boolean {
  return RAFT_DESIGNS.has(lock.design);
}

/** Designs whose grants carry a fencing token; an attack has the resource check it there, as it should. */
const FENCING_DESIGNS = new Set(["redis-fenced", "raft-zk", "etcd-lease"]);

export function issuesFencingTokens(lock: LockUnderTest): boolean {
  return FENCING_DESIGNS.has(lock.design) || (lock.design === "redis-failover" && lock.designOptions?.fencing === true);
}

/**
 * How long this lock lets a silent holder keep the lock, ms: the session timeout or
 * lease TTL of a Raft design (its option, else its default), the TTL the workload asks
 * for on a Redis-family lock.
 */
export function leaseMsOf(lock: LockUnderTest): number {
  if (isRaftDesign(lock)) {
    const s = lock.designOptions?.sessionTimeoutMs;
    return typeof s === "number" ? s : RAFT_SESSION_MS_DEFAULT;
  }
  return REDIS_TTL_MS;
}

/** Designs' default request timeouts, ms (their design.ts); a library adapter's client has none by default. */
const REQUEST_TIMEOUT_MS_DEFAULT: Record<string, number> = {
  "redis-setnx": 100,
  "redis-fenced": 100,
  "redis-failover": 100,
  redlock: 50,
  "raft-zk": 200,
  "etcd-lease": 200,
};

/** How long this lock's client waits for a reply before giving up, ms (Infinity: no limit). */
export function requestTimeoutMsOf(lock: LockUnderTest): number {
  const o = lock.designOptions?.requestTimeoutMs;
  return typeof o === "number" ? o : (REQUEST_TIMEOUT_MS_DEFAULT[lock.design] ?? Infinity);
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

/**
 * The processes that serve this lock, by the ids the designs use: the Raft cluster
 * (default 5 nodes), the failover pair's primary (its replicas and Sentinel take over
 * only on failover), or the Redis nodes of a Redis-family lock.
 */
export function lockServersOf(lock: LockUnderTest): string[] {
  const n = typeof lock.designOptions?.nodes === "number" ? lock.designOptions.nodes : undefined;
  const ids = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
  if (lock.design === "raft-zk") return ids("zk", n ?? 5);
  if (lock.design === "etcd-lease") return ids("etcd", n ?? 5);
  if (lock.design === "redis-failover") return ["redis-primary"];
  return ids("redis", n ?? (lock.design === "redlock" ? 5 : 1));
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
