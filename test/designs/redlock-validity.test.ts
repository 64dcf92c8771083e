import { describe, expect, it } from "vitest";
import { acquired, driftMs, expirationMs, quorumOf, retryDelayMs, validityMs } from "../../designs/redlock/validity.js";

/**
 * Worked examples of Redlock's arithmetic, computed by hand from the sources'
 * formulas (node-redlock: drift = round(f·ttl) + 2, expiration = start + ttl − drift,
 * success iff votes ≥ quorum and expiration > now; retry = max(0, d + floor((2u − 1)·j))).
 */
describe("Redlock arithmetic", () => {
  it("quorum is a strict majority", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(quorumOf)).toEqual([1, 2, 2, 3, 3, 4, 4]);
  });

  it("drift = round(driftFactor × TTL) + 2 ms", () => {
    expect(driftMs(10_000, 0.01, 2)).toBe(102); // the Redis page's 10 s TTL
    expect(driftMs(1_000, 0.01, 2)).toBe(12);
    expect(driftMs(30_000, 0.01, 2)).toBe(302); // the seed's 30 s TTL
    expect(driftMs(250, 0.01, 2)).toBe(5); // 2.5 rounds up to 3, + 2
    expect(driftMs(249, 0.01, 2)).toBe(4); // 2.49 rounds to 2, + 2
    expect(driftMs(1_000, 0, 0)).toBe(0); // the seed's variant: no drift term
  });

  it("validity = TTL − elapsed − drift", () => {
    // 10 s TTL, the votes took 50 ms: 10000 − 50 − 102 = 9848 ms left.
    expect(validityMs(1_000, 1_050, 10_000, 102)).toBe(9_848);
    expect(expirationMs(1_000, 10_000, 102)).toBe(10_898);
    // 1 s TTL, a fifth reply 991 ms late: 1000 − 991 − 12 = −3, already expired.
    expect(validityMs(0, 991, 1_000, 12)).toBe(-3);
    // The seed's check (elapsed < TTL, no drift) accepts the same acquisition with 9 ms left.
    expect(validityMs(0, 991, 1_000, 0)).toBe(9);
  });

  it("acquired iff votes reach the quorum and the expiration is still ahead", () => {
    expect(acquired(3, 3, 988, 987)).toBe(true);
    expect(acquired(3, 3, 988, 988)).toBe(false); // node-redlock: expiration > Date.now(), strictly
    expect(acquired(2, 3, 988, 10)).toBe(false);
    expect(acquired(5, 3, 988, 10)).toBe(true);
  });

  it("retry delay is retryDelay ± retryJitter, never negative", () => {
    expect(retryDelayMs(200, 100, 0)).toBe(100);
    expect(retryDelayMs(200, 100, 0.5)).toBe(200);
    expect(retryDelayMs(200, 100, 0.999)).toBe(299);
    expect(retryDelayMs(50, 100, 0)).toBe(0); // 50 − 100 clamps to 0
    expect(retryDelayMs(10, 0, 0.7)).toBe(10);
  });
});
