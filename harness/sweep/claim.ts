/**
 * The counter a sweep's threads take chunks from (main thread and worker threads alike):
 * Int32s in a SharedArrayBuffer, [0] the index of the next chunk not yet taken. Taking is
 * one atomic add, so no thread waits for another to be handed work, and each chunk is taken
 * exactly once. Stopping (a failure, an interrupt) moves the counter past the end. Slot
 * 1 + t is worker thread t's chunk + 1 (0: none yet): what it held if it dies.
 */
export function newClaimCounter(threads: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * (1 + threads)));
}

/** Thread t's slot in the counter. */
export function threadSlot(t: number): number {
  return 1 + t;
}

/** The chunk the thread with `slot` took last, or -1. */
export function chunkOfSlot(counter: Int32Array, slot: number): number {
  return Atomics.load(counter, slot) - 1;
}

/**
 * The index of the next chunk for the caller, or -1 when all `chunkCount` are taken (or the
 * sweep stopped). A worker thread passes its slot, which then names the chunk.
 */
export function claimChunk(counter: Int32Array, chunkCount: number, slot = 0): number {
  // Never at or past the end already: once there, the counter is left alone (no overflow however long threads keep asking).
  if (Atomics.load(counter, 0) >= chunkCount) return -1;
  const i = Atomics.add(counter, 0, 1);
  if (i >= chunkCount) return -1;
  if (slot > 0) Atomics.store(counter, slot, i + 1);
  return i;
}

/** Chunks taken so far (some may still be running). */
export function chunksClaimed(counter: Int32Array, chunkCount: number): number {
  return Math.min(Atomics.load(counter, 0), chunkCount);
}

/** No chunk is taken after this. */
export function stopClaims(counter: Int32Array, chunkCount: number): void {
  Atomics.store(counter, 0, chunkCount);
}
