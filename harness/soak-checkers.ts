import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { CheckContext } from "../checkers/types.js";
import type { Verdicts } from "../checkers/run-all.js";
import type { HistoryEvent } from "../sim/history.js";

/** Events a batch carries to the checker thread: large enough that posting costs little per event. */
const BATCH_EVENTS = 2048;
/** Batches sent and not yet judged before the run waits for the checkers: bounds the memory in flight. */
const BACKLOG_MAX = 4;
/**
 * The checker thread's young generation, in MB (V8 would let its semi-spaces grow to
 * 16 MB each). What the thread allocates is short-lived and its live state small, so a
 * young generation this size costs it little CPU and keeps ~16 MB less resident at 1000
 * clients.
 */
const CHECKER_YOUNG_GENERATION_MB = 8;
/** How long the run waits on a checker thread that judges nothing before it gives up. */
const STALL_MS_MAX = 600_000;

export const BACKLOG = 0;
export const END = "end";

export interface CheckerThreadData {
  ctx: CheckContext;
  port: MessagePort;
  shared: SharedArrayBuffer;
}

export type FromCheckerThread = { verdicts: Verdicts } | { error: string };

/**
 * Every checker of a long run judging it online in a thread of its own (harness/soak-thread.ts),
 * so the simulation and the checking each have a core: what OnlineVerdicts does in this
 * thread, fed in order, in batches. The run's thread waits (Atomics.wait) only when
 * BACKLOG_MAX batches are still unjudged, so the events in flight stay bounded; the
 * verdicts are the same as in-process, as the events and their order are.
 */
export class CheckerThread {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly backlog = new Int32Array(new SharedArrayBuffer(4));
  private batch: HistoryEvent[] = [];
  private received: FromCheckerThread | undefined;

  constructor(ctx: CheckContext) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const data: CheckerThreadData = { ctx, port: port2, shared: this.backlog.buffer as SharedArrayBuffer };
    this.worker = startCheckerThread(data, [port2]);
    this.worker.unref();
  }

  push = (e: HistoryEvent): void => {
    this.batch.push(e);
    if (this.batch.length >= BATCH_EVENTS) this.flush();
  };

  private flush(): void {
    if (this.batch.length === 0) return;
    this.waitBacklogBelow(BACKLOG_MAX);
    this.post(this.batch);
    this.batch = [];
  }

  private post(m: HistoryEvent[] | typeof END): void {
    Atomics.add(this.backlog, BACKLOG, 1);
    this.port.postMessage(m);
  }

  /** The verdicts, once the thread has judged every event; the thread then stops. */
  result(): Verdicts {
    let m: FromCheckerThread | undefined;
    try {
      this.flush();
      this.post(END);
      this.waitBacklogBelow(1);
      m = this.received ?? (receiveMessageOnPort(this.port)?.message as FromCheckerThread | undefined);
    } finally {
      this.close();
    }
    if (m === undefined) throw new Error("the checker thread ended without verdicts");
    if ("error" in m) throw new Error(`the checker thread failed: ${m.error}`);
    return m.verdicts;
  }

  /** Stops the thread (every exit path of the run). */
  close(): void {
    this.port.close();
    void this.worker.terminate();
  }

  private waitBacklogBelow(n: number): void {
    let waitedMs = 0;
    for (let v = Atomics.load(this.backlog, BACKLOG); v >= n; v = Atomics.load(this.backlog, BACKLOG)) {
      this.failIfReported();
      if (Atomics.wait(this.backlog, BACKLOG, v, 1000) === "timed-out") waitedMs += 1000;
      if (waitedMs >= STALL_MS_MAX) throw new Error(`the checker thread judged nothing for ${STALL_MS_MAX / 1000} s`);
    }
    this.failIfReported();
  }

  /** The thread writes only to answer END or to report a failure: a failure stops the run at once. */
  private failIfReported(): void {
    this.received ??= receiveMessageOnPort(this.port)?.message as FromCheckerThread | undefined;
    if (this.received !== undefined && "error" in this.received) throw new Error(`the checker thread failed: ${this.received.error}`);
  }
}

/**
 * Start the checker thread. From dist/ its entry is plain JS; from TypeScript sources
 * (vitest, tsx) it is loaded through tsx's tsImport by a small eval'd bootstrap, as the
 * sweep's threads are (harness/sweep/threads.ts): Node 20 workers do not apply
 * `--import tsx` loader hooks to their own entry file.
 */
function startCheckerThread(workerData: CheckerThreadData, transferList: MessagePort[]): Worker {
  const options = { workerData, transferList, resourceLimits: { maxYoungGenerationSizeMb: CHECKER_YOUNG_GENERATION_MB } };
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./soak-thread.js", import.meta.url), options);
  const entry = new URL("./soak-thread.ts", import.meta.url).href;
  const tsxApi = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve("tsx")), "esm", "api", "index.mjs")).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => m.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}));`;
  return new Worker(boot, { ...options, eval: true });
}
