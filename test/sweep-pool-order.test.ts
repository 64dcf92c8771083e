import { afterAll, describe, expect, it } from "vitest";
import { loadScenario } from "../scenarios/index.js";
import { SweepPool } from "../harness/sweep/pool.js";

/**
 * The pool posts two jobs ahead to each worker, and a worker's report jobs are async, so
 * a later job can answer first. Found as a hang: a 1,000-seed sweep with reports timed
 * out on a loaded machine when the pool only matched an answer to the oldest posted job.
 * The answers are fed straight to the pool here, in the order that hung it.
 */
describe("sweep pool: answers out of order", () => {
  const pool = new SweepPool(loadScenario("naive-baseline"), 2);
  afterAll(() => pool.close());

  it("a worker's second job answering before its first resolves both", async () => {
    type Internals = { running: Map<unknown, Array<{ jobId: number }>>; onMessage(w: unknown, m: unknown): void; submit(m: unknown): Promise<unknown> };
    const p = pool as unknown as Internals;
    // Two jobs as if posted to one worker; the real worker is never sent them.
    const [w] = [...p.running.keys()];
    const first = { jobId: 9001, resolve: (r: unknown) => got.push(["first", r]), reject: () => undefined };
    const second = { jobId: 9002, resolve: (r: unknown) => got.push(["second", r]), reject: () => undefined };
    const got: Array<[string, unknown]> = [];
    p.running.get(w)!.push(first, second);
    p.onMessage(w, { type: "done", jobId: 9002, results: [] });
    p.onMessage(w, { type: "done", jobId: 9001, results: [] });
    expect(got.map(([n]) => n)).toEqual(["second", "first"]);
    expect(p.running.get(w)!.some((j) => j.jobId === 9001 || j.jobId === 9002)).toBe(false);
  });
});
