import { parentPort } from "node:worker_threads";
import type { Scenario } from "../../scenarios/schema.js";
import { doWork } from "./job.js";
import { toWire, type FromWorker, type ToWorker } from "./protocol.js";

/**
 * A sweep worker thread. It is started before the main thread has loaded (or even read)
 * the scenario (threads.ts), so the scenario comes as the first message; then it runs
 * the seeds or writes the reports the main thread hands it. Up to two jobs are posted
 * ahead (pool.ts); report jobs are async, so their answers can come out of order.
 */
const port = parentPort!;
let scenario: Scenario | undefined;

port.on("message", (msg: ToWorker) => {
  if (msg.type === "scenario") {
    scenario = msg.scenario;
    return;
  }
  void handle(msg).then((reply) => port.postMessage(reply));
});

async function handle(msg: Exclude<ToWorker, { type: "scenario" }>): Promise<FromWorker> {
  try {
    if (!scenario) throw new Error("sweep worker: a job came before the scenario");
    return { type: "done", jobId: msg.jobId, results: await doWork(scenario, msg) };
  } catch (err) {
    return { type: "error", jobId: msg.jobId, error: toWire(err) };
  }
}
