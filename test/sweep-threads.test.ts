import { describe, expect, it } from "vitest";
import type { Worker } from "node:worker_threads";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadScenario } from "../scenarios/index.js";
import { InputError } from "../sim/errors.js";
import type { Scenario } from "../scenarios/schema.js";
import { chunksOf, SweepPool } from "../harness/sweep/pool.js";
import { runSweep } from "../harness/sweep/sweep.js";
import { startThreads, threadsFor } from "../harness/sweep/threads.js";
import { describeThreadDied, SweepThreadDied } from "../harness/sweep/thread-died.js";
import { killOnceClaimed } from "./helpers/kill-once-claimed.js";

/**
 * The main thread is one of the sweep's workers (2 workers = it and one thread), threads
 * can be started before the scenario is read, and a thread that dies fails the sweep with
 * the seeds it held, never a hang or a bare "exited with code 1".
 */
type Internals = { threads: Worker[]; submit(m: unknown): Promise<unknown> };
const exited = (w: Worker): Promise<number> => new Promise((r) => w.once("exit", r));

describe("sweep threads", () => {
  it("2 workers are this thread and one thread; 1 worker starts none", async () => {
    expect([1, 2, 4].map(threadsFor)).toEqual([0, 1, 3]);
    const s = loadScenario("naive-baseline");
    const two = new SweepPool(s, 2);
    const one = new SweepPool(s, 1);
    try {
      expect((two as unknown as Internals).threads).toHaveLength(1);
      expect((one as unknown as Internals).threads).toHaveLength(0);
    } finally {
      await Promise.all([two.close(), one.close()]);
    }
  });

  it("threads started before the sweep give the same results, and are stopped after it", async () => {
    const s = loadScenario("naive-gc-pause");
    const range = { from: 1, to: 40 };
    const threads = startThreads(threadsFor(2));
    const stopped = exited(threads[0]!);
    const early = await runSweep(s, { range, workers: 2, limit: 5, progress: false, threads });
    await stopped;
    const inline = await runSweep(s, { range, workers: 1, limit: 5, progress: false });
    expect(early.results).toEqual(inline.results);
  });

  it("threads started early are stopped when the sweep is refused (an unknown design)", async () => {
    const s: Scenario = { ...loadScenario("naive-baseline"), design: "no-such-design" };
    const threads = startThreads(1);
    const stopped = exited(threads[0]!);
    await expect(runSweep(s, { range: { from: 1, to: 4 }, workers: 2, limit: 5, progress: false, threads })).rejects.toThrow(/unknown design/);
    await stopped;
  });

  it("an InputError thrown in a thread arrives as an InputError", async () => {
    const s: Scenario = { ...loadScenario("naive-baseline"), faults: [{ kind: "pause", atMs: 10, delayMs: 0, target: "ghost", durationMs: 5 }] };
    const pool = new SweepPool(s, 2);
    const dir = mkdtempSync(join(tmpdir(), "lockstep-sweep-threads-"));
    try {
      // Submitted without this thread taking a share: the job goes to the thread, whose run of the seed is refused.
      await expect((pool as unknown as Internals).submit({ type: "report", jobId: 0, seed: 1, dir: join(dir, "seed-1") })).rejects.toBeInstanceOf(InputError);
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a thread that dies mid-sweep fails it with a named error, the seeds it held and a replay command", async () => {
    const s = loadScenario("naive-gc-pause");
    const pool = new SweepPool(s, 2);
    const thread = (pool as unknown as Internals).threads[0]!;
    try {
      // Stopped from outside once it holds a chunk, as a crashed thread would stop (terminate() exits 0 or 1: either must fail the sweep).
      const killed = killOnceClaimed(thread);
      // Enough seeds that the thread, loading from sources, takes some before this thread has run them all.
      const seeds = Array.from({ length: 1000 }, (_, i) => i + 1);
      const err = await pool.runSeeds(seeds).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SweepThreadDied);
      const chunk = await killed;
      const died = err as SweepThreadDied;
      expect(died.message).toMatch(/a sweep worker thread stopped \(exit code \d+\) while running seeds? \d+/);
      expect(died.seeds.length).toBeGreaterThan(0);
      // The chunk its slot named is what it held.
      expect(died.seeds).toEqual(chunksOf(seeds, 2)[chunk]);
    } finally {
      await pool.close();
    }
  });

  it("runSweep adds the replay command of the first seed the dead thread held; the CLI prints seed and replay", async () => {
    const s = loadScenario("naive-gc-pause");
    const threads = startThreads(1);
    void killOnceClaimed(threads[0]!);
    // Enough seeds that the thread takes some before this thread has run them all.
    const err = await runSweep(s, { range: { from: 1, to: 1000 }, workers: 2, limit: 5, threads, progress: false }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SweepThreadDied);
    const died = err as SweepThreadDied;
    expect(died.replay).toBe(`npx lockstep run naive-gc-pause --seed ${died.seeds[0]}`);
    expect(describeThreadDied(died)).toBe(
      `lockstep: ${died.message}\nseed: ${died.seeds[0]}\nreplay: npx lockstep run naive-gc-pause --seed ${died.seeds[0]}\n`,
    );
  });
});

describe("sweep chunks", () => {
  const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

  it("cover the seeds once, in order; at most 4 a chunk; the last ones single when there is more than one worker", () => {
    for (const [n, workers] of [
      [400, 2],
      [401, 2],
      [7, 2],
      [1, 2],
      [0, 2],
      [400, 1],
      [1000, 4],
    ] as const) {
      const chunks = chunksOf(range(n), workers);
      expect(chunks.flat()).toEqual(range(n));
      expect(chunks.every((c) => c.length >= 1 && c.length <= 4)).toBe(true);
      if (workers > 1 && n >= 400) expect(chunks.slice(-workers * 2 * 4).every((c) => c.length === 1)).toBe(true);
    }
    expect(chunksOf(range(400), 1).every((c) => c.length === 4)).toBe(true);
  });
});
