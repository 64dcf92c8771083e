import type { Worker } from "node:worker_threads";
import type { Scenario } from "../../scenarios/schema.js";
import type { SeedResult } from "./run-seed.js";
import { doWork } from "./job.js";
import { runSeed } from "./run-seed.js";
import { chunkOfSlot, chunksClaimed, claimChunk, newClaimCounter, stopClaims, threadSlot } from "./claim.js";
import { fromWire, type Claim, type FromWorker, type ToWorker, type Work } from "./protocol.js";
import { startThreads, threadsFor } from "./threads.js";
import { SweepThreadDied } from "./thread-died.js";

export { defaultWorkers } from "./threads.js";

/** The sweep was interrupted (SIGINT): not a failure of any seed. */
export class SweepCancelled extends Error {
  constructor() {
    super("the sweep was interrupted");
    this.name = "SweepCancelled";
  }
}

/** Report jobs posted to a thread before it answers: 2 keeps it busy while this thread writes a report of its own. */
const JOBS_AHEAD = 2;

/**
 * Seeds per chunk: small, so that the last chunks (run while the other worker may be idle)
 * are short, and this thread, which runs chunks too, answers its threads often; at most 4
 * (about 10 ms of naive-gc-pause), each a message of a few hundred bytes.
 */
export function chunkSeeds(seedCount: number, workers: number): number {
  return Math.max(1, Math.min(4, Math.ceil(seedCount / (Math.max(1, workers) * 16))));
}

/**
 * `seeds` cut into chunks of chunkSeeds(), except the last few, one seed each: at the end
 * a worker that finds no chunk left waits for the others' last chunks, and single seeds
 * make that wait one seed long rather than a chunk's.
 */
export function chunksOf(seeds: readonly number[], workers: number): number[][] {
  const size = chunkSeeds(seeds.length, workers);
  const singlesFrom = workers > 1 ? Math.max(0, seeds.length - workers * JOBS_AHEAD * size) : seeds.length;
  const chunks: number[][] = [];
  for (let i = 0; i < seeds.length;) {
    const n = i >= singlesFrom ? 1 : Math.min(size, singlesFrom - i);
    chunks.push(seeds.slice(i, i + n));
    i += n;
  }
  return chunks;
}

type Settle = { resolve: (r: SeedResult[]) => void; reject: (e: Error) => void };
/** A claim posted to a thread: its chunks' results go to `onChunk` as they come. */
type ClaimJob = Claim & Settle & { onChunk: (index: number, results: SeedResult[]) => void };
type Job = (Work & Settle) | ClaimJob;

/** What runSeeds is running: its chunks, their counter, and which this thread is on. */
interface Claiming {
  chunks: number[][];
  counter: Int32Array;
  answered: boolean[];
  /** The chunk this thread is running, or -1. */
  here: number;
}

/**
 * Runs seeds of one scenario on `workers` workers: this thread and `workers - 1` threads
 * (threads.ts). A sweep's chunks are taken from one shared counter (claim.ts) by every
 * thread, this one included, so no thread waits for another to hand it work; each thread
 * posts each chunk's results as it finishes. Report jobs wait in a queue; each thread is
 * posted up to JOBS_AHEAD of them and this thread takes the next one whenever it is free.
 * Results are returned in the order asked, so the outcome does not depend on the worker
 * count or on scheduling.
 */
export class SweepPool {
  private readonly threads: Worker[];
  private readonly queue: Array<Work & Settle> = [];
  /** Jobs posted to each thread and not yet answered, oldest first. */
  private readonly running = new Map<Worker, Job[]>();
  private nextJobId = 1;
  private failure: Error | undefined;
  private closed = false;
  private cancelled = false;
  private claiming: Claiming | undefined;

  /** `started`: threads already started for this sweep (threads.ts), so they load while this thread does. */
  constructor(
    private scenario: Scenario,
    readonly workers: number,
    started: Worker[] = [],
  ) {
    const wanted = threadsFor(workers);
    // More threads started than the seeds need (a sweep of one seed): stop the rest now.
    for (const extra of started.slice(wanted)) void extra.terminate();
    this.threads = [...started.slice(0, wanted), ...startThreads(wanted - Math.min(wanted, started.length))];
    for (const w of this.threads) {
      this.running.set(w, []);
      w.on("message", (m: FromWorker) => this.onMessage(w, m));
      w.on("error", (e) => this.threadDied(w, e.message));
      w.on("exit", (code) => {
        if (!this.closed) this.threadDied(w, `exit code ${code}`);
      });
      w.postMessage({ type: "scenario", scenario } satisfies ToWorker);
    }
  }

  /**
   * Run `seeds`; `onResults` is called as chunks finish (for progress and the
   * checkpoint). Resolves with one result per seed, in the order of `seeds`; after
   * `cancel()`, with the results of the chunks that finished (the rest are dropped, to
   * be run again on resume).
   */
  async runSeeds(seeds: readonly number[], onResults?: (chunk: readonly SeedResult[]) => void): Promise<SeedResult[]> {
    const chunks = chunksOf(seeds, this.workers);
    const done: Array<SeedResult[] | undefined> = new Array(chunks.length);
    if (this.failure) {
      if (this.cancelled) return [];
      throw this.failure;
    }
    const claiming: Claiming = { chunks, counter: newClaimCounter(this.threads.length), answered: new Array<boolean>(chunks.length).fill(false), here: -1 };
    this.claiming = claiming;
    const onChunk = (index: number, results: SeedResult[]): void => {
      // After a failure or an interrupt nothing more counts: what finished before it is the result.
      if (this.failure || claiming.answered[index]) return;
      claiming.answered[index] = true;
      done[index] = results;
      onResults?.(results);
    };
    // Each thread answers its claim once the counter ran out, after its last chunk's results
    // (one port, in order); a failure settles every claim at once. Waiting for the answers
    // rather than for the last chunk leaves no thread stopped while it still loads.
    const claims = this.threads.map(
      (w, t) =>
        new Promise<void>((settled) => {
          const claim: ClaimJob = {
            type: "claim",
            jobId: this.nextJobId++,
            chunks,
            counter: claiming.counter,
            slot: threadSlot(t),
            onChunk,
            resolve: () => settled(),
            reject: () => settled(),
          };
          this.running.get(w)!.push(claim);
          w.postMessage({ type: "claim", jobId: claim.jobId, chunks, counter: claiming.counter, slot: claim.slot } satisfies ToWorker);
        }),
    );
    await this.claimHere(claiming, onChunk);
    await Promise.all(claims);
    this.claiming = undefined;
    if (this.failure && !this.cancelled) throw this.failure;
    return done.flatMap((x) => x ?? []);
  }

  /**
   * This thread's share of runSeeds: take chunks until none is left or the sweep failed.
   * Between chunks it yields, so threads' results are read and a signal handler can run.
   */
  private async claimHere(c: Claiming, onChunk: (index: number, results: SeedResult[]) => void): Promise<void> {
    for (let i = claimChunk(c.counter, c.chunks.length); i >= 0 && !this.failure; i = claimChunk(c.counter, c.chunks.length)) {
      c.here = i;
      let results: SeedResult[];
      try {
        results = c.chunks[i]!.map((seed) => runSeed(this.scenario, seed));
      } catch (e) {
        this.fail(e instanceof Error ? e : new Error(String(e)));
        return;
      } finally {
        c.here = -1;
      }
      onChunk(i, results);
      await new Promise((r) => setImmediate(r));
    }
  }

  /**
   * Run another scenario's seeds on the same threads (the audit runs many scenarios):
   * messages on a port arrive in order, so the next claim finds the new scenario. Only
   * between runSeeds calls.
   */
  useScenario(s: Scenario): void {
    this.scenario = s;
    for (const w of this.threads) w.postMessage({ type: "scenario", scenario: s } satisfies ToWorker);
  }

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
    const all = Promise.all(list.map((r) => this.submit({ type: "report", jobId: 0, seed: r.seed, dir: r.dir })));
    // Settled here too, so a rejection is not left unhandled while this thread works.
    all.catch(() => undefined);
    await this.workHere();
    await all;
    // Interrupted while this thread wrote the last report: the others were not written.
    if (this.cancelled) throw new SweepCancelled();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.threads.map((w) => w.terminate()));
  }

  /**
   * This thread's share of queued jobs (reports): take them one at a time until none is left or the sweep
   * failed. Between jobs it yields, so threads' answers are read (and more posted to
   * them) and a signal handler can run.
   */
  private async workHere(): Promise<void> {
    for (let job = this.queue.shift(); job !== undefined; job = this.queue.shift()) {
      try {
        job.resolve(await doWork(this.scenario, job));
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        job.reject(err);
        this.fail(err);
      }
      await new Promise((r) => setImmediate(r));
      this.pump();
    }
  }

  private submit(work: Work): Promise<SeedResult[]> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ ...work, jobId: this.nextJobId++, resolve, reject });
      this.pump();
    });
  }

  /**
   * Hand out queued jobs, up to JOBS_AHEAD per thread: a thread that finishes a job starts
   * its next one at once, without waiting for this thread to finish its own job, read the
   * answer and post more.
   */
  private pump(): void {
    for (let depth = 1; depth <= JOBS_AHEAD && this.queue.length > 0; depth++) {
      for (const w of this.threads) {
        const posted = this.running.get(w)!;
        if (posted.length >= depth || this.queue.length === 0) continue;
        const job = this.queue.shift()!;
        posted.push(job);
        const { resolve: _r, reject: _j, ...work } = job;
        w.postMessage(work satisfies ToWorker);
      }
    }
  }

  private onMessage(w: Worker, m: FromWorker): void {
    // Report jobs are async in the worker, so two posted ones can answer out of order:
    // match by id, not by position (matching the oldest only left a job unanswered).
    const posted = this.running.get(w);
    const at = posted ? posted.findIndex((j) => j.jobId === m.jobId) : -1;
    if (at < 0) return;
    if (m.type === "chunk") {
      const job = posted![at]!;
      if (job.type === "claim") job.onChunk(m.index, m.results);
      return;
    }
    const job = posted!.splice(at, 1)[0]!;
    if (m.type === "done") job.resolve(m.results);
    else {
      const e = fromWire(m.error);
      job.reject(e);
      this.fail(e);
    }
    this.pump();
  }

  /** A thread stopped without being asked (crashed, ran out of memory): the sweep fails, naming the seeds it held. */
  private threadDied(w: Worker, reason: string): void {
    if (this.closed || this.failure) return;
    const seeds = (this.running.get(w) ?? []).flatMap((j) => (j.type === "report" ? [j.seed] : this.heldBy(w)));
    this.fail(new SweepThreadDied(reason, seeds));
  }

  /**
   * The seeds a dead thread was running: the chunks taken and not answered, but for the one
   * this thread is running and those the live threads' slots name. (Killed between taking a
   * chunk and naming it in its slot, a thread's chunk is still found this way.)
   */
  private heldBy(dead: Worker): number[] {
    const c = this.claiming;
    if (c === undefined) return [];
    const others = new Set<number>([c.here]);
    this.threads.forEach((w, t) => {
      if (w !== dead) others.add(chunkOfSlot(c.counter, threadSlot(t)));
    });
    const held: number[] = [];
    for (let i = 0; i < chunksClaimed(c.counter, c.chunks.length); i++) if (!c.answered[i] && !others.has(i)) held.push(...c.chunks[i]!);
    return held;
  }

  /** The first error ends the sweep: every pending job is rejected with it, and no chunk is taken after it. */
  private fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    if (this.claiming) stopClaims(this.claiming.counter, this.claiming.chunks.length);
    for (const job of [...[...this.running.values()].flat(), ...this.queue]) job.reject(e);
    for (const posted of this.running.values()) posted.length = 0;
    this.queue.length = 0;
  }
}
