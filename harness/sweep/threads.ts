import { Worker } from "node:worker_threads";
import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Starting sweep worker threads, kept apart from the simulator: the sweep command starts
 * its threads before this thread loads the simulator, so that each thread's own loading
 * (the same modules, in its own isolate) overlaps this thread's instead of following it.
 * Nothing here may import sim/, impls/ or checkers/.
 */

declare global {
  interface ImportMeta {
    /** Defined only in the start-up bundle (cli/bundle.ts): starts a worker thread from the bundled worker. */
    readonly lockstepSweepWorker?: () => Worker;
  }
}

/** Default worker count: the machine's cores. */
export function defaultWorkers(): number {
  return Math.max(1, availableParallelism());
}

/**
 * Threads a sweep of `workers` workers needs: this thread runs seeds too (it is idle
 * otherwise, and has the simulator loaded already), so 2 workers are this thread and one more.
 */
export function threadsFor(workers: number): number {
  return Math.max(0, workers - 1);
}

/**
 * Start a worker thread; it loads the simulator at once and waits for its scenario
 * (protocol.ts). From dist/ the worker is plain JS. From TypeScript sources (vitest, tsx)
 * it is loaded through tsx's tsImport by a small eval'd bootstrap: Node 20 workers do not
 * apply `--import tsx` loader hooks to their own entry file.
 */
export function startWorker(): Worker {
  // Run from the start-up bundle (bin/load-bundle.js): the worker runs the worker's bundle too.
  const fromBundle = import.meta.lockstepSweepWorker;
  if (fromBundle !== undefined) return fromBundle();
  const fromSources = import.meta.url.endsWith(".ts");
  if (!fromSources) return new Worker(new URL("./worker.js", import.meta.url));
  const entry = new URL("./worker.ts", import.meta.url).href;
  const tsxApi = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve("tsx")), "esm", "api", "index.mjs")).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => m.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}));`;
  return new Worker(boot, { eval: true });
}

/** Start `count` sweep threads (threadsFor(workers) for a sweep). */
export function startThreads(count: number): Worker[] {
  const threads: Worker[] = [];
  for (let i = 0; i < count; i++) threads.push(startWorker());
  return threads;
}
