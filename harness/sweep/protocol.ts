import { InputError, SimLimitError, SimulationStopError } from "../../sim/errors.js";
import type { Scenario } from "../../scenarios/schema.js";
import type { SeedResult } from "./run-seed.js";

/** A job posted to one thread: a failing seed whose run directory to write (seeds to run come as a Claim). */
export type Work = { type: "report"; jobId: number; seed: number; dir: string };

/**
 * Messages between the sweep's main thread and its workers (structured-cloned). The
 * scenario comes first: a thread is started before the scenario is read (threads.ts).
 * Answers carry seed results only, never a history.
 */
export type ToWorker = { type: "scenario"; scenario: Scenario } | Work | Claim;

/**
 * A sweep's seeds, taken chunk by chunk from a shared counter (claim.ts) rather than posted
 * one job at a time: a thread never waits for the main thread to hand it the next chunk.
 * Each chunk's results come back as a "chunk" message; "done" when the counter ran out.
 */
export interface Claim {
  type: "claim";
  jobId: number;
  chunks: number[][];
  /** claim.ts's counter, shared by every thread of the sweep. */
  counter: Int32Array;
  /** This thread's slot in it (claim.ts threadSlot). */
  slot: number;
}

export type FromWorker =
  | { type: "done"; jobId: number; results: SeedResult[] }
  | { type: "chunk"; jobId: number; index: number; results: SeedResult[] }
  | { type: "error"; jobId: number; error: WireError };

/** An error as it crosses a thread: enough to rebuild the user-facing kinds. */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  input?: { file: string; field: string; expected: string };
  limit?: { limit: string; value: number; detail: string };
  stopped?: { scenario: string; seed: number; command?: string } | null;
}

export function toWire(err: unknown): WireError {
  const e = err instanceof Error ? err : new Error(String(err));
  const w: WireError = { name: e.name, message: e.message, stack: e.stack };
  if (e instanceof InputError) w.input = { file: e.file, field: e.field, expected: e.expected };
  if (e instanceof SimLimitError) w.limit = { limit: e.limit, value: e.value, detail: e.detail };
  if (e instanceof SimulationStopError) w.stopped = e.replay ?? null;
  return w;
}

/** Rebuild the error on the main thread, so the CLI maps it to the same exit code as a single run. */
export function fromWire(w: WireError): Error {
  if (w.input) return new InputError(w.input.file, w.input.field, w.input.expected);
  if (w.limit) return new SimLimitError(w.limit.limit, w.limit.value, w.limit.detail);
  if (w.stopped !== undefined) {
    const e = new SimulationStopError(w.message);
    e.name = w.name;
    if (w.stopped) e.replay = w.stopped;
    return e;
  }
  const e = new Error(`in a sweep worker: ${w.message}`);
  e.stack = `${e.message}\n--- worker stack ---\n${w.stack ?? "(none)"}`;
  return e;
}
