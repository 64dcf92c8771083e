import { Worker } from "node:worker_threads";
import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Scenario } from "../../scenarios/schema.js";
import { runSeed, writeSeedReport, type SeedResult } from "./run-seed.js";
import { fromWire, type FromWorker, type ToWorker } from "./protocol.js";

/** Default worker count: the machine's cores. */
export function defaultWorkers(): number {
  return Math.max(1, availableParallelism());
}

/**
 * Start a worker thread. From dist/ the worker is plain JS. From TypeScript sources
 * (vitest, tsx) it is loaded through tsx's tsImport by a small eval'd bootstrap:
 * Node 20 workers do not apply `--import tsx` loader hooks to their own entry file.
 */
function startWorker(workerData: unknown): Worker {
  const fromSources = import.meta.url.endsWith(".ts");
  if (!fromSources) return new Worker(new URL("./worker.js", import.meta.url), { workerData });
  const entry = new URL("./worker.ts", import.meta.url).href;
  const tsxApi = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve("tsx")), "esm", "api", "index.mjs")).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => m.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}));`;
  return new Worker(boot, { eval: true, workerData });
}

/** The sweep was interrupted (SIGINT): not a failure of any seed. */
export class SweepCancelled extends Error {
  constructor() {
    super("the sweep was interrupted");
    this.name = "SweepCancelled";
  }
}

/** Chunks posted to a worker before it answers: 2 keeps it busy across one round trip. */
const JOBS_AHEAD = 2;

type Job = ToWorker & { resolve: (r: SeedResult[]) => void; reject: (e: Error) => void };

/**
 * Runs seeds of one scenario on `workers` threads (1 = in this thread, no thread
 * overhead). Seeds go out in small chunks to whichever worker is free; results come
 * back in any order and are returned in the order asked, so the outcome does not
 * depend on the worker count or on scheduling.
 */
export class SweepPool {
  private readonly threads: Worker[] = [];
  private readonly queue: Job[] = [];
  /** Jobs posted to each worker and not yet answered, oldest first. */
  private readonly running = new Map<Worker, Job[]>();
  private nextJobId = 1;
  private failure: Error | undefined;

  constructor(
    private readonly scenario: Scenario,
    readonly workers: number,
  ) {
    if (workers <= 1) return;
    for (let i = 0; i < workers; i++) {
      const w = startWorker({ scenario });
      w.on("message", (m: FromWorker) => this.onMessage(w, m));
      w.on("error", (e) => this.fail(e));
      w.on("exit", (code) => {
        if (code !== 0 && !this.closed) this.fail(new Error(`sweep worker exited with code ${code}`));
      });
      this.threads.push(w);
      this.running.set(w, []);
    }
  }

  private closed = false;

  /**
   * Run `seeds`; `onResults` is called as chunks finish (for progress and the
   * checkpoint). Resolves with one result per seed, in the order of `seeds`; after
   * `cancel()`, with the results of the chunks that finished (the rest are dropped, to
   * be run again on resume).
   */
  async runSeeds(seeds: readonly number[], onResults?: (chunk: readonly SeedResult[]) => void): Promise<SeedResult[]> {
    const chunkSize = Math.max(1, Math.min(8, Math.ceil(seeds.length / (Math.max(1, this.workers) * 16))));
    const chunks: number[][] = [];
    for (let i = 0; i < seeds.length; i += chunkSize) chunks.push(seeds.slice(i, i + chunkSize));
    const done: Array<SeedResult[] | undefined> = new Array(chunks.length);
    if (this.workers <= 1) {
      for (let i = 0; i < chunks.length && !this.cancelled; i++) {
        const rs = chunks[i]!.map((s) => runSeed(this.scenario, s));
        done[i] = rs;
        onResults?.(rs);
        // Let a signal handler run between chunks: this thread is the only one.
        if (i + 1 < chunks.length) await new Promise((r) => setImmediate(r));
      }
      return done.flatMap((x) => x ?? []);
    }
    await Promise.allSettled(
      chunks.map((c, i) =>
        this.submit({ type: "run", jobId: 0, seeds: c }).then((rs) => {
          done[i] = rs;
          onResults?.(rs);
        }),
      ),
    );
    if (this.failure && !this.cancelled) throw this.failure;
    return done.flatMap((x) => x ?? []);
  }

  private cancelled = false;

  /** Stop: nothing more is handed out, and the threads are stopped now (an interrupt). */
  async cancel(): Promise<void> {
    if (this.cancelled) return;
    this.cancelled = true;
    this.fail(new SweepCancelled());
    await this.close();
  }

  get wasCancelled(): boolean {
    return this.cancelled;
  }

  /** Run each seed again and write its run directory. */
  async writeReports(list: ReadonlyArray<{ seed: number; dir: string }>): Promise<void> {
    if (this.workers <= 1) {
      for (const r of list) {
        if (this.cancelled) throw new SweepCancelled();
        await writeSeedReport(this.scenario, r.seed, r.dir);
        await new Promise((res) => setImmediate(res));
      }
      return;
    }
    await Promise.all(list.map((r) => this.submit({ type: "report", jobId: 0, seed: r.seed, dir: r.dir })));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.threads.map((w) => w.terminate()));
  }

  private submit(msg: ToWorker): Promise<SeedResult[]> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ ...msg, jobId: this.nextJobId++, resolve, reject });
      this.pump();
    });
  }

  /**
   * Hand out queued jobs, up to JOBS_AHEAD per worker: a worker that finishes a chunk
   * starts its next one at once, without waiting for this thread to read the answer and
   * post more (under load this thread may not run for milliseconds).
   */
  private pump(): void {
    for (let depth = 1; depth <= JOBS_AHEAD && this.queue.length > 0; depth++) {
      for (const w of this.threads) {
        const posted = this.running.get(w)!;
        if (posted.length >= depth || this.queue.length === 0) continue;
        const job = this.queue.shift()!;
        posted.push(job);
        const { resolve: _r, reject: _j, ...msg } = job;
        w.postMessage(msg as ToWorker);
      }
    }
  }

  private onMessage(w: Worker, m: FromWorker): void {
    // Report jobs are async in the worker, so two posted ones can answer out of order:
    // match by id, not by position (matching the oldest only left a job unanswered).
    const posted = this.running.get(w);
    const at = posted ? posted.findIndex((j) => j.jobId === m.jobId) : -1;
    if (at < 0) return;
    const job = posted!.splice(at, 1)[0]!;
    if (m.type === "done") job.resolve(m.results);
    else {
      const e = fromWire(m.error);
      job.reject(e);
      this.fail(e);
    }
    this.pump();
  }

  /** The first error ends the sweep: every pending job is rejected with it. */
  private fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    for (const job of [...[...this.running.values()].flat(), ...this.queue]) job.reject(e);
    for (const posted of this.running.values()) posted.length = 0;
    this.queue.length = 0;
  }
}
