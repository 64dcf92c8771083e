/**
 * Errors that stop a run because library code left the simulated world. They name the
 * call, so the user knows which API to give the sandbox or which library to fix.
 */
import { SimulationStopError } from "../errors.js";

export class SimulationEscapeError extends SimulationStopError {
  constructor(
    /** The call that would have left the simulation, e.g. `require("net")`. */
    readonly call: string,
    /** Which simulated process's library code made it. */
    readonly processId: string,
    detail = "",
  ) {
    super(`library code on ${processId} tried ${call}, which would leave the simulation (nondeterministic)${detail ? `: ${detail}` : ""}`);
    this.name = "SimulationEscapeError";
  }
}

/** Library code threw (or rejected) where nothing could catch it: in Node the process would die. */
export class LibraryError extends SimulationStopError {
  constructor(
    readonly processId: string,
    readonly where: string,
    override readonly cause: unknown,
  ) {
    super(`library code on ${processId} threw in ${where}: ${describe(cause)}`);
    this.name = "LibraryError";
  }
}

function describe(e: unknown): string {
  if (e && typeof e === "object" && "message" in e) {
    const stack = typeof (e as { stack?: unknown }).stack === "string" ? (e as unknown as { stack: string }).stack : "";
    const at = stack.split("\n").find((l) => l.trim().startsWith("at "));
    return `${String((e as { message: unknown }).message)}${at ? ` (${at.trim()})` : ""}`;
  }
  return String(e);
}

/**
 * Library code would have run forever inside one simulated instant (an endless promise
 * chain, a busy wait on the clock, a setImmediate loop): the sandbox stops it, named,
 * where Node would hang.
 */
export class LibraryBoundError extends SimulationStopError {
  constructor(
    readonly processId: string,
    /** What was bounded, e.g. "a busy wait on the clock". */
    readonly what: string,
    detail: string,
  ) {
    super(`library code on ${processId} ran ${what}: ${detail}`);
    this.name = "LibraryBoundError";
  }
}

/**
 * Library code did not return for the watchdog's bound of wall time (watchdog.ts): a spin,
 * an await or thenable loop, a wait that never ends. Named by the process and its turn.
 */
export class LibraryHangError extends SimulationStopError {
  constructor(
    readonly processId: string,
    /** The turn library code was in: an adapter call, a reply, a timer callback. */
    readonly call: string,
    readonly boundMs: number,
  ) {
    super(
      `library code on ${processId || "a simulated process"} did not return in ${call || "its turn"} for ${boundMs / 1000} s of wall time (a spin, or an await or thenable loop that never lets simulated time move); stopped by the watchdog (LOCKSTEP_WATCHDOG_MS sets its bound)`,
    );
    this.name = "LibraryHangError";
  }
}
