/**
 * A sandbox realm: a V8 context in which unmodified library code (a lock library, a
 * user's own module) runs as one simulated process. Everything in it that could read
 * the host — Date, performance.now, process.hrtime, timers, Math.random, crypto's
 * randomness, Intl's default date, Event timestamps — is that process's virtual clock,
 * timer or seeded stream instead; what cannot be made so stops the run, named.
 *
 * A membrane: every global is built in the realm by the prelude (prelude.ts) over a
 * bridge of host functions only the prelude sees; every value crossing either way goes
 * through membrane.ts, the one module where host code meets realm values. The context's
 * global is made from a null-prototype object, so `this.constructor` at top level is the
 * realm's Object, not the host's; the globals whose real counterparts read the host
 * (Date, Intl, Error's stack formatting...) cannot be deleted to uncover them.
 *
 * Turns, as Node orders them: host code enters the realm (a timer fires, a reply
 * arrives, a fiber calls the library) through `enter`, which afterwards runs every
 * queued process.nextTick callback, then the realm's promise reactions (the context
 * is made with microtaskMode "afterEvaluate", so running an empty script runs every
 * pending continuation, synchronously), again while ticks were queued meanwhile. A
 * promise chain runs to its end before the next simulated event, and the run stays
 * one synchronous, seeded loop.
 *
 * Bounded: a turn that queues more than REACTIONS_PER_TURN_MAX promise reactions and
 * ticks, or reads the clock more than CLOCK_READS_PER_TURN_MAX times (a busy wait on
 * Date.now(), which never moves inside a turn), a setImmediate chain that fires
 * IMMEDIATES_PER_INSTANT_MAX times without simulated time moving, and more than
 * TIMER_CALLBACKS_PER_SECOND_MAX timer callbacks in a simulated second, stop the run
 * with a LibraryBoundError naming it: never a hang, never a bare event bound.
 * Anything else that does not return (a plain spin, `for (;;) await null`, a thenable
 * that resolves to itself) is stopped by the watchdog (watchdog.ts), named by its turn.
 *
 * Anything that would leave the simulation (a real socket, the host clock, a real
 * timer) throws a SimulationEscapeError naming the call; it is kept and re-thrown from
 * `enter`, so a library that catches it cannot hide it.
 */
import vm from "node:vm";
import { types } from "node:util";
import { LibraryBoundError, LibraryError, SimulationEscapeError } from "./errors.js";
import { InputError } from "../errors.js";
import { bytesOf, Membrane, type RealmModules } from "./membrane.js";
import { hostBridge } from "./bridge.js";
import { guarded, noteTurn } from "./watchdog.js";
import { IMMEDIATE, RealmTimers } from "./timers.js";
import { CLOCK_READS_PER_TURN_MAX, IMMEDIATES_PER_INSTANT_MAX, TIMER_CALLBACKS_PER_SECOND_MAX } from "./bounds.js";

export interface RealmHost {
  /** The simulated process's id (for error messages). */
  readonly processId: string;
  /** The process's wall clock, ms (fractional). */
  wallMs(): number;
  /** The process's monotonic clock, µs. */
  monoUs(): number;
  /** Run `fn` after `delayUs` on the process's monotonic clock, as a simulated event. */
  setTimer(delayUs: number, fn: () => void): { cancel(): void };
  /** The process's seeded stream for library code, uniform in [0, 1). */
  random(): number;
}

/** Rounds of (ticks, drain, host callbacks) in one turn before it is called a livelock. */
const TURN_ROUNDS_MAX = 100_000;
const DRAIN = new vm.Script("undefined", { filename: "lockstep:drain" });
export class Realm {
  readonly context: vm.Context;
  /** The one way host code reaches realm values. */
  readonly membrane: Membrane;
  readonly timers: RealmTimers;
  private depth = 0;
  private after: Array<() => void> = [];
  private failure: Error | undefined;
  private clockReads = 0;
  /** setImmediate callbacks at one instant, timer callbacks in one simulated second. */
  private readonly immediates = new CountPerWindow(IMMEDIATES_PER_INSTANT_MAX);
  private readonly timerCallbacks = new CountPerWindow(TIMER_CALLBACKS_PER_SECOND_MAX);

  constructor(readonly host: RealmHost) {
    // A null-prototype global: the contextified global looks names up on this object
    // first, and an ordinary object would answer `constructor` with the host's Object.
    const sandbox = Object.create(null) as Record<string, unknown>;
    this.context = vm.createContext(sandbox, {
      name: `lockstep:${host.processId}`,
      microtaskMode: "afterEvaluate",
      codeGeneration: { strings: true, wasm: false },
    });
    this.timers = new RealmTimers(
      host.setTimer,
      (what, fn, args) => this.enter(what, () => this.membrane.invokeWith(fn, args)),
      (kind) => (kind === IMMEDIATE ? this.countImmediate() : this.countTimer()),
    );
    const bridge = hostBridge(this, () => this.membrane);
    this.membrane = new Membrane(this.context, sandbox, bridge);
  }

  /**
   * Stop the run with an escape naming `call`: the host error is kept (and re-thrown
   * from `enter`, even if library code catches what it is thrown); library code gets a
   * realm error of the same message.
   */
  escape(call: string, detail = ""): never {
    throw this.escapeError(call, detail);
  }

  /** The realm error `escape` throws, with the host's escape recorded. */
  escapeError(call: string, detail = ""): Error {
    const e = new SimulationEscapeError(call, this.host.processId, detail);
    this.failure ??= e;
    return this.membrane.error(e);
  }

  /** Stop the run with a bound error; library code gets a realm error of the same message. */
  bound(what: string, detail: string): Error {
    const e = new LibraryBoundError(this.host.processId, what, detail);
    this.failure ??= e;
    return this.membrane.error(e);
  }

  /** A clock read, counted against the turn's budget. */
  clockRead(): void {
    if (++this.clockReads > CLOCK_READS_PER_TURN_MAX) {
      throw this.bound(
        "a busy wait on the clock",
        `${CLOCK_READS_PER_TURN_MAX} clock reads (Date.now(), performance.now(), process.hrtime()) in one turn; simulated time moves only between events, so a loop waiting for it never ends (wait with setTimeout instead)`,
      );
    }
  }

  /** Stop the run with this error at the end of the current turn. */
  fail(e: Error): void {
    this.failure ??= e;
  }

  /** Run host callback `fn` after the current drain, outside any microtask. */
  later(fn: () => void): void {
    this.after.push(fn);
  }

  /**
   * Run `fn` (which calls into library code) as one turn of this process: then run
   * every nextTick callback and promise continuation, and every `later` callback,
   * until none is left.
   */
  enter<T>(where: string, fn: () => T): T | undefined {
    if (this.depth > 0) return this.guard(where, fn);
    return guarded(() => this.turn(where, fn));
  }

  private turn<T>(where: string, fn: () => T): T | undefined {
    this.depth++;
    this.clockReads = 0;
    this.membrane.beginTurn();
    noteTurn(this.host.processId, where);
    try {
      const result = this.guard(where, fn);
      this.settleTurn(where);
      if (this.failure) throw this.failure;
      return result;
    } finally {
      this.depth--;
    }
  }

  private settleTurn(where: string): void {
    for (let round = 0; ; round++) {
      if (round >= TURN_ROUNDS_MAX)
        this.fail(new LibraryError(this.host.processId, where, new Error(`no quiet point after ${TURN_ROUNDS_MAX} rounds of callbacks (a livelock?)`)));
      if (this.failure) return;
      if (this.membrane.ticksWaiting()) this.guard(`${where} (process.nextTick callbacks)`, () => this.membrane.runTicks());
      if (this.failure) return;
      try {
        // No vm timeout here: it starts a watchdog thread per call (~60x the cost of the
        // drain). The reaction budget (prelude.ts) bounds then-chains instead.
        DRAIN.runInContext(this.context);
      } catch (e) {
        this.fail(this.libraryError(`${where} (promise continuations)`, e));
        return;
      }
      if (this.membrane.ticksWaiting()) continue;
      if (this.after.length === 0) return;
      const batch = this.after;
      this.after = [];
      for (const f of batch) this.guard(where, f);
    }
  }

  /** A throw in a turn as the error that stops the run: a host error (thrown by host code, or standing behind a realm error) as it is; library code's named. */
  private libraryError(where: string, thrown: unknown): Error {
    const e = this.membrane.hostError(thrown) ?? (this.membrane.isHostValue(thrown) ? thrown : undefined);
    if (e instanceof SimulationEscapeError || e instanceof LibraryBoundError || e instanceof InputError || e instanceof LibraryError) return e;
    if (e instanceof Error) return new LibraryError(this.host.processId, where, e);
    return new LibraryError(this.host.processId, where, this.membrane.describe(thrown, true));
  }

  private guard<T>(where: string, fn: () => T): T | undefined {
    try {
      return fn();
    } catch (thrown) {
      // A host error thrown as a realm error is that error; an escape, a bound or a user's
      // input error (an adapter that cannot be found) is kept even after another failure.
      const e = this.libraryError(where, thrown);
      if (!(e instanceof LibraryError) || this.failure === undefined) this.fail(e);
      return undefined;
    }
  }

  /** Run a compiled script in this realm (a module's wrapper, a simulated client module): its value, a realm value. */
  runScript(script: vm.Script): unknown {
    return script.runInContext(this.context);
  }

  private countImmediate(): void {
    const now = this.host.monoUs();
    if (this.immediates.hit(now)) {
      this.bound(
        "an endless setImmediate chain",
        `${IMMEDIATES_PER_INSTANT_MAX} setImmediate callbacks at one simulated instant (t=${now} µs); library code keeps scheduling one, so simulated time never moves`,
      );
    }
  }

  private countTimer(): void {
    const second = Math.floor(this.host.monoUs() / 1e6);
    if (this.timerCallbacks.hit(second)) {
      this.bound(
        "a timer flood",
        `${TIMER_CALLBACKS_PER_SECOND_MAX} setTimeout/setInterval callbacks in one simulated second (from t=${second} s of the process's clock); library code keeps arming timers faster than any lock needs`,
      );
    }
  }

  /** Fill a typed array (the host's or the realm's) from the seeded stream (crypto.getRandomValues). */
  fillRandom<A extends ArrayBufferView>(a: A): A {
    const bytes = bytesOf(a);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(this.host.random() * 256);
    return a;
  }

  /** `n` bytes of the seeded stream, as a realm Buffer. */
  randomBytes(n: number): Uint8Array {
    return this.fillRandom(this.membrane.bufferOf(n));
  }

  /** Queue library callback `fn(...args)` (realm values) on the realm's process.nextTick queue. */
  nextTickCall(fn: unknown, ...args: unknown[]): void {
    this.membrane.nextTick(fn, ...args);
  }

  /** The realm's globals as library code sees them (the context's global object), for builtins.ts to hand out. */
  get globals(): Readonly<Record<string, unknown>> {
    return this.context as Record<string, unknown>;
  }

  /** Module-building pieces of the prelude (module-loader.ts, builtins.ts). */
  get modules(): RealmModules {
    return this.membrane.modules;
  }

  /** An RFC 4122 version-4 UUID from the seeded stream. */
  randomUUID(): string {
    const b = Buffer.from(this.randomBytes(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = b.toString("hex");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
}

/** A count that starts again whenever its window (an instant, a second) changes; `hit` says it passed `max`. */
class CountPerWindow {
  private window = -1;
  private count = 0;

  constructor(private readonly max: number) {}

  hit(window: number): boolean {
    if (window !== this.window) {
      this.window = window;
      this.count = 0;
    }
    return ++this.count > this.max;
  }
}

/**
 * Rejections left unhandled in a realm belong to the simulated process (Node 20 would
 * crash that process, not lockstep): reported once on stderr, never rethrown on the host,
 * whatever the promise's prototype (null, a proxy). V8 notices them at host-tick
 * granularity, so they cannot be part of a deterministic history. A rejection of the
 * host's own (its prototype chain the host's Promise.prototype) is thrown as Node would.
 */
let rejectionHookInstalled = false;
let rejectionReported = false;
export function installRejectionHook(): void {
  if (rejectionHookInstalled) return;
  rejectionHookInstalled = true;
  process.on("unhandledRejection", (reason, promise) => {
    if (isHostPromise(promise)) throw reason;
    if (rejectionReported) return;
    rejectionReported = true;
    process.stderr.write(
      "lockstep: warning: library code left a promise rejection unhandled (in Node its process would crash); the simulation goes on, as the rejection cannot be placed in simulated time\n",
    );
  });
}

/** Whether `p` is a host promise: no proxy on its prototype chain, which passes the host's Promise.prototype. */
function isHostPromise(p: object): boolean {
  let o: object | null = p;
  for (let i = 0; i < 64 && o !== null; i++) {
    if (types.isProxy(o)) return false;
    if (o === Promise.prototype) return true;
    o = Reflect.getPrototypeOf(o);
  }
  return false;
}
