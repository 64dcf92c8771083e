import { InputError, SimulationStopError } from "../sim/errors.js";
import type { AdapterRefusal } from "../designs/library/real-loader.js";

// Failures of a real run that are not the user's input: a client process that died, a
// server that exited mid-run, a broken run invariant. The CLI prints them as one line
// (plus the process's last log lines) and exits 1; no stack trace.
export class RealRunError extends Error {
  override readonly name = "RealRunError";
  constructor(
    message: string,
    /** The last log lines of the process concerned, if any. */
    readonly logTail = "",
  ) {
    super(message);
  }
}

/** A bad adapter, refused as the simulator refuses it: an input error (exit 2), or its code threw (a stopped run, exit 7). */
export function adapterRefusalError(r: AdapterRefusal): InputError | SimulationStopError {
  return r.kind === "input" ? new InputError(r.file, r.field, r.expected) : new SimulationStopError(r.message);
}
