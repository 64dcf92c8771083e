import { parentPort } from "node:worker_threads";
import type { Scenario } from "../../scenarios/schema.js";
import { doWork } from "./job.js";
import { runSeed } from "./run-seed.js";
import { claimChunk } from "./claim.js";
import { toWire, type Claim, type FromWorker, type ToWorker } from "./protocol.js";

/**
 * A sweep worker thread. It is started before the main thread has loaded (or even read)
 * the scenario (threads.ts), so the scenario comes as the first message; then it runs
 * the seeds or writes the reports the main thread hands it. A sweep's seeds come as one
 * claim: chunks taken from a shared counter until none is left, each chunk's results posted
 * as it finishes. Report jobs are posted up to two ahead (pool.ts) and are async, so their
 * answers can come out of order.
 */
const port = parentPort!;
let scenario: Scenario | undefined;

port.on("message", (msg: ToWorker) => {
  if (msg.type === "scenario") {
    scenario = msg.scenario;
    return;
  }
  // The answer goes out a microtask later, after this message's other listeners: the build's
  // code-cache recorder (bin/load-bundle.js) writes its file then, before the main thread,
  // reading the answer, can stop this thread.
  void handle(msg).then((reply) => port.postMessage(reply));
});

async function handle(msg: Exclude<ToWorker, { type: "scenario" }>): Promise<FromWorker> {
  try {
    if (!scenario) throw new Error("sweep worker: a job came before the scenario");
    if (msg.type === "claim") return claim(scenario, msg);
    return { type: "done", jobId: msg.jobId, results: await doWork(scenario, msg) };
  } catch (err) {
    return { type: "error", jobId: msg.jobId, error: toWire(err) };
  }
}

/**
 * Take chunks until none is left, synchronously (nothing else is asked of a thread
 * meanwhile), posting each chunk's results; the answer ("done") says the counter ran out.
 */
function claim(s: Scenario, msg: Claim): FromWorker {
  const { counter, chunks, slot } = msg;
  for (let i = claimChunk(counter, chunks.length, slot); i >= 0; i = claimChunk(counter, chunks.length, slot)) {
    const results = chunks[i]!.map((seed) => runSeed(s, seed));
    port.postMessage({ type: "chunk", jobId: msg.jobId, index: i, results } satisfies FromWorker);
  }
  return { type: "done", jobId: msg.jobId, results: [] };
}
