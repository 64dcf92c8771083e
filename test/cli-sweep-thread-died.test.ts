import { describe, expect, it } from "vitest";
import { Worker } from "node:worker_threads";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../cli/main.js";
import { EXIT } from "../harness/exit-codes.js";
import { captureStdio } from "./helpers/capture-stdio.js";

const io = captureStdio();

/**
 * `lockstep sweep` whose worker thread dies once it is handed seeds (stopped from outside,
 * as a crash or an out-of-memory thread stops): the command ends, exit 1, with one message
 * naming the seeds, the seed and replay lines, and no stack trace; no summary is written.
 * Before, a thread that exited 0 hung the sweep and one that exited 1 printed an internal
 * error with a stack.
 */
describe("lockstep sweep: a worker thread dies", () => {
  it("exit 1, the seeds it held, seed and replay; no summary.json", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "lockstep-thread-died-")), "out");
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (this: Worker, m: unknown): void {
      post.call(this, m);
      const claim = m as { type?: string; counter?: Int32Array; slot?: number };
      // Once it has taken a chunk (its slot in the shared counter names one): stopped any earlier, it would hold no seed.
      if (claim.type !== "claim") return;
      const poll = setInterval(() => {
        if (Atomics.load(claim.counter!, claim.slot!) === 0) return;
        clearInterval(poll);
        void this.terminate();
      }, 1);
    };
    let code: number;
    try {
      code = await main(["sweep", "naive-gc-pause", "--seeds", "1..1000", "--workers", "2", "--reports", "0", "--out", out]);
    } finally {
      Worker.prototype.postMessage = post;
    }
    expect(code).toBe(EXIT.internal);
    const m =
      /^lockstep: a sweep worker thread stopped \(exit code \d+\) while running seeds? (\d+)[\d, ]*; the sweep is abandoned\nseed: (\d+)\nreplay: npx lockstep run naive-gc-pause --seed (\d+)\n$/.exec(
        io.err.replace(/^.*sweep naive-gc-pause.*\n/m, ""),
      );
    expect(m, io.err).not.toBeNull();
    expect(m![2]).toBe(m![1]);
    expect(m![3]).toBe(m![1]);
    expect(io.err).not.toMatch(/\n\s+at /);
    expect(existsSync(join(out, "summary.json"))).toBe(false);
  });
});
