import type { Worker } from "node:worker_threads";
import type { Claim } from "../../harness/sweep/protocol.js";

/**
 * Stop `worker` from outside (as a crash or an out-of-memory thread stops) once it has
 * taken a chunk of a sweep's seeds: its slot in the claim counter names one. Stopping it
 * any earlier would find it holding no seed. Resolves with the chunk index its slot named.
 */
export function killOnceClaimed(worker: Worker): Promise<number> {
  const post = worker.postMessage.bind(worker);
  return new Promise((resolve) => {
    worker.postMessage = (m: unknown): void => {
      post(m);
      if ((m as { type?: string }).type !== "claim") return;
      const { counter, slot } = m as Claim;
      const poll = setInterval(() => {
        const taken = Atomics.load(counter, slot);
        if (taken === 0) return;
        clearInterval(poll);
        void worker.terminate();
        resolve(taken - 1);
      }, 1);
    };
  });
}
