import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { OnlineVerdicts } from "../checkers/run-online.js";
import type { CheckContext } from "../checkers/types.js";
import type { HistoryEvent } from "../sim/history.js";
import { BACKLOG, END, type CheckerThreadData, type FromCheckerThread } from "./soak-checkers.js";

/**
 * The checker thread of a long run (harness/soak-checkers.ts): every checker judging the
 * batches of events the run's thread sends, in order, and the verdicts when it ends.
 */
function serve(ctx: CheckContext, port: MessagePort, backlog: Int32Array): void {
  const online = new OnlineVerdicts(ctx);
  let failed = false;
  port.on("message", (m: HistoryEvent[] | typeof END) => {
    try {
      if (failed) return;
      if (m === END) send(port, { verdicts: online.result() });
      else for (const e of m) online.push(e);
    } catch (err) {
      failed = true;
      send(port, { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    } finally {
      Atomics.sub(backlog, BACKLOG, 1);
      Atomics.notify(backlog, BACKLOG);
    }
  });
}

function send(port: MessagePort, m: FromCheckerThread): void {
  port.postMessage(m);
}

if (parentPort !== null && workerData !== null) {
  const data = workerData as CheckerThreadData;
  serve(data.ctx, data.port, new Int32Array(data.shared));
}
