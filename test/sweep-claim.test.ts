import { describe, expect, it } from "vitest";
import { chunkOfSlot, chunksClaimed, claimChunk, newClaimCounter, stopClaims, threadSlot } from "../harness/sweep/claim.js";

/** The shared counter a sweep's threads take chunks from (harness/sweep/claim.ts). */
describe("sweep claim counter", () => {
  it("hands out every chunk once, in order, then -1; a thread's slot names its last chunk", () => {
    const counter = newClaimCounter(2);
    const got: number[] = [];
    for (let k = 0; k < 12; k++) got.push(claimChunk(counter, 7, k % 2 === 0 ? 0 : threadSlot(1)));
    expect(got).toEqual([0, 1, 2, 3, 4, 5, 6, -1, -1, -1, -1, -1]);
    expect(chunkOfSlot(counter, threadSlot(1))).toBe(5);
    expect(chunkOfSlot(counter, threadSlot(0))).toBe(-1);
    // Asking past the end moves the counter no further.
    expect(Atomics.load(counter, 0)).toBe(7);
    expect(chunksClaimed(counter, 7)).toBe(7);
  });

  it("after stopClaims nothing more is handed out", () => {
    const counter = newClaimCounter(1);
    expect(claimChunk(counter, 5)).toBe(0);
    stopClaims(counter, 5);
    expect(claimChunk(counter, 5, threadSlot(0))).toBe(-1);
    expect(chunkOfSlot(counter, threadSlot(0))).toBe(-1);
  });
});
