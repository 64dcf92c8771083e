/**
 * Redlock's arithmetic, as pure functions (tested against worked examples in
 * test/designs/redlock-validity.test.ts). Sources:
 *
 *  - Redis docs, "Distributed Locks with Redis" (redis/redis-doc
 *    docs/manual/patterns/distributed-locks.md): quorum N/2+1; acquired iff a
 *    majority voted and elapsed < TTL; validity = TTL − elapsed; "a few
 *    milliseconds" of drift, no constant given.
 *  - antirez/redlock-rb lib/redlock.rb: drift = TTL × 0.01 + 2 ms (1 ms of Redis
 *    expire precision + 1 ms), validity = TTL − elapsed − drift.
 *  - mike-marcacci/node-redlock (redlock.js v4, src/index.ts v5):
 *    drift = round(driftFactor × TTL) + 2, expiration = start + TTL − drift,
 *    success iff votes ≥ quorum and expiration > Date.now();
 *    retry delay = max(0, retryDelay + floor((random·2 − 1) × retryJitter)).
 */

/** A majority of `n` nodes: floor(n/2) + 1. */
export function quorumOf(n: number): number {
  return Math.floor(n / 2) + 1;
}

/** Clock drift allowance, ms: round(driftFactor × ttl) + constant (node-redlock: +2). */
export function driftMs(ttlMs: number, driftFactor: number, driftConstantMs: number): number {
  return Math.round(driftFactor * ttlMs) + driftConstantMs;
}

/** The moment (on the client's clock) the lock stops being valid: start + ttl − drift. */
export function expirationMs(startMs: number, ttlMs: number, drift: number): number {
  return startMs + ttlMs - drift;
}

/** Validity left at `nowMs`: ttl − (now − start) − drift. Negative: already expired. */
export function validityMs(startMs: number, nowMs: number, ttlMs: number, drift: number): number {
  return expirationMs(startMs, ttlMs, drift) - nowMs;
}

/** node-redlock's acquire/extend success test. */
export function acquired(votes: number, quorum: number, expiration: number, nowMs: number): boolean {
  return votes >= quorum && expiration > nowMs;
}

/** node-redlock's retry wait for a uniform `u` in [0, 1): retryDelay ± retryJitter, never negative. */
export function retryDelayMs(retryDelay: number, retryJitter: number, u: number): number {
  return Math.max(0, retryDelay + Math.floor((u * 2 - 1) * retryJitter));
}
