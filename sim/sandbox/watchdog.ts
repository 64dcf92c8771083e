/**
 * No hang, ever: library code that does not return — a plain spin, `for (;;) await null`,
 * a thenable that resolves to itself, anything V8 runs without end — is stopped after a
 * bound of wall time, naming the simulated process and the turn it was in (the adapter
 * call, the reply or the timer callback), as a LibraryHangError (exit 7, with the seed and
 * the replay line).
 *
 * How: work that can run library code goes through `guarded`, which runs it inside a vm
 * call with a timeout. Node's timeout starts a watchdog thread that terminates the V8
 * execution and turns that into a catchable error at the vm call, whatever JavaScript is
 * running below it (the realm's microtasks included). A thread per call costs ~0.1 ms, so
 * the kernel runs a library run's events in slices of SLICE_EVENTS through one guarded
 * call each (Simulation.guardEvents), and a realm turn outside any slice (an adapter
 * loading) is guarded alone. The bound is wall time, so it is large: no legitimate slice
 * comes near it on a loaded machine; LOCKSTEP_WATCHDOG_MS sets it.
 */
import vm from "node:vm";
import { LibraryHangError } from "./errors.js";
import { InputError } from "../errors.js";

/** Events per guarded slice: one watchdog thread (~0.1 ms idle, several ms on a loaded machine) per ~0.5 s of library run idle. */
export const SLICE_EVENTS = 8192;
/** The default bound: a slice of library work that runs this long is a hang. */
export const WATCHDOG_MS_DEFAULT = 60_000;

const context = vm.createContext({ work: undefined as (() => void) | undefined });
const SLICE = new vm.Script("work()", { filename: "lockstep:watchdog" });
let inside = false;
let lastProcess = "";
let lastCall = "";

/** The realm's note of the turn it enters: what a hang is named by. */
export function noteTurn(processId: string, where: string): void {
  lastProcess = processId;
  lastCall = where;
}

/** The bound, ms: LOCKSTEP_WATCHDOG_MS or the default. */
export function watchdogMs(): number {
  const raw = process.env.LOCKSTEP_WATCHDOG_MS;
  if (raw === undefined || raw === "") return WATCHDOG_MS_DEFAULT;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 100) throw new InputError("<env>", "LOCKSTEP_WATCHDOG_MS", `a whole number of milliseconds, at least 100; got "${raw}"`);
  return ms;
}

/** Run `fn` under the watchdog (once: nested calls run as they are). */
export function guarded<T>(fn: () => T): T {
  if (inside) return fn();
  const ms = watchdogMs();
  let result: T | undefined;
  inside = true;
  (context as { work?: () => void }).work = () => {
    result = fn();
  };
  try {
    SLICE.runInContext(context, { timeout: ms, displayErrors: false });
  } catch (e) {
    if ((e as { code?: unknown })?.code === "ERR_SCRIPT_EXECUTION_TIMEOUT") throw new LibraryHangError(lastProcess, lastCall, ms);
    throw e;
  } finally {
    inside = false;
    (context as { work?: () => void }).work = undefined;
  }
  return result as T;
}
