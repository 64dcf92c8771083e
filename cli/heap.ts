import { setFlagsFromString } from "node:v8";

/**
 * How far V8 may let its old generation grow past what the last full collection kept,
 * in percent. Left alone, V8 grows it up to four times that when collecting looks cheap,
 * and a run's loop never goes idle for V8's memory reducer to hand pages back: a run at
 * 1000 clients then held several times its live state resident. A fixed growth keeps the
 * resident set near the live state, at the cost of more frequent full collections.
 * Not a cap (--max-old-space-size would be one, and a run too big for it would die): a
 * run whose live state is larger simply gets a larger heap.
 */
export const HEAP_GROWING_PERCENT = 20;

/**
 * The V8 flags boundHeapGrowth sets: none when node was given its own heap growth. A long
 * run (`long`, --duration) also compacts at each full collection: its live state stays the
 * same size while what dies is scattered over pages that stay resident (old space ~220 MB
 * for ~120 MB live at 1000 clients); a batch run's heap mostly grows, so it skips the work.
 * A batch run instead keeps its young generation at the size it has when the run starts
 * (V8 would double it up to 16 MB a semi-space): the run's whole history is promoted
 * through it, and a larger one left the old space more scattered.
 */
export function heapFlags(execArgv: readonly string[], long: boolean): string[] {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return [];
  return [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, long ? "--compact-on-every-full-gc" : "--semi-space-growth-factor=1"];
}

/**
 * For the command that runs a simulation at length (`run`): set when it starts rather
 * than on node's command line, so no second process is started and the other commands'
 * start-up is untouched. V8 reads these flags at each full collection.
 */
export function boundHeapGrowth(long: boolean): void {
  for (const flag of heapFlags(process.execArgv, long)) setFlagsFromString(flag);
}
