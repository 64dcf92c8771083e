import type { Attack } from "./types.js";
import { baseScenario, profileOfLock } from "./lease.js";

export const asyncFailover: Attack = {
  name: "async-failover",
  title: "The primary acknowledges the grant, dies before replicating it, and a replica is promoted",
  story:
    "The lock lives on a Redis primary that replicates asynchronously. When the holder takes the lock the replication link is congested; the primary answers OK at once (Redis acknowledges before any replica has the write) and its host dies a moment later. Sentinel promotes the replica, which never saw the key, and a waiter locks at once while the holder is still in its critical section. A client that WAITs for a replica to acknowledge its SET before using the lock (undoing it and retrying otherwise) is granted only a replicated key, and the waiter waits for its release across the failover.",
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  compile(lock) {
    const failover = profileOfLock(lock).failover;
    if ("none" in failover) return { ok: false, refusal: `no replica to fail over to: ${lock.design} ${failover.none}` };
    const { primary, replicas, promptOptions } = failover;
    const s = baseScenario({ ...lock, designOptions: { ...promptOptions, ...lock.designOptions } }, this.name, this.title, this.story);
    s.clients = [
      { id: "c1", startMs: 1, opsMax: 1 },
      { id: "c2", startMs: 100, opsMax: 1 },
    ];
    // Served by the lock, not by chance: c2 must wait for c1 across the failover. A lock that
    // lost c1's key lets c2 in beside it (an overlap, always a challenge).
    s.challenge = { kind: "waiter-served" };
    // The lease outlives the failover (about 0.6 s here): only the lost write lets c2 in.
    Object.assign(s.workload, { ttlMs: 5000, waitMs: 5000, workMs: 3000 });
    s.durationMs = 8000;
    s.faults.push(
      {
        on: { process: "c1", f: "acquire", type: "invoke", nth: 1 },
        delayMs: 0,
        kind: "cut",
        links: replicas.map((r): [string, string] => [primary, r]),
        durationMs: 200,
        note: "the replication links from the primary are congested when the holder asks",
      },
      {
        on: { process: "c1", f: "acquire", type: "ok", nth: 1 },
        delayMs: 1,
        kind: "crash",
        target: primary,
        durationMs: 3000,
        note: "the primary's host dies 1 ms after acknowledging the holder's SET",
      },
    );
    return { ok: true, scenario: s };
  },
};
