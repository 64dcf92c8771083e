import { parentPort, workerData } from "node:worker_threads";
import type { Scenario } from "../../scenarios/schema.js";
import { runSeed, writeSeedReport } from "./run-seed.js";
import { toWire, type FromWorker, type ToWorker } from "./protocol.js";

/**
 * A sweep worker thread: it holds one scenario (from workerData) and runs the seeds
 * or writes the reports the main thread hands it. Up to two jobs are posted ahead
 * (pool.ts); report jobs are async, so their answers can come out of order.
 */
const scenario = (workerData as { scenario: Scenario }).scenario;
const port = parentPort!;

port.on("message", (msg: ToWorker) => {
  void handle(msg).then((reply) => port.postMessage(reply));
});

async function handle(msg: ToWorker): Promise<FromWorker> {
  try {
    if (msg.type === "run") return { type: "done", jobId: msg.jobId, results: msg.seeds.map((s) => runSeed(scenario, s)) };
    await writeSeedReport(scenario, msg.seed, msg.dir);
    return { type: "done", jobId: msg.jobId, results: [] };
  } catch (err) {
    return { type: "error", jobId: msg.jobId, error: toWire(err) };
  }
}
