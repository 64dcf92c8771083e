/**
 * A sandbox realm: a V8 context in which unmodified library code (a lock library, a
 * user's own module) runs as one simulated process. Everything in it that could read
 * the host — Date, performance.now, process.hrtime, timers, Math.random, crypto's
 * randomness, Intl's default date, Event timestamps — is that process's virtual clock,
 * timer or seeded stream instead; what cannot be made so stops the run, named.
 *
 * Sealed: every global is built in the realm by the prelude (prelude.ts) over a bridge
 * of host functions only the prelude sees; host values crossing in go through seal.ts.
 * The context's global is made from a null-prototype object, so `this.constructor` at
 * top level is the realm's Object, not the host's.
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
 * Not bounded: `while (true) await null` (an await calls nothing a budget could count;
 * a vm timeout on every drain would cost ~68 µs per turn).
 *
 * Anything that would leave the simulation (a real socket, the host clock, a real
 * timer) throws a SimulationEscapeError naming the call; it is kept and re-thrown from
 * `enter`, so a library that catches it cannot hide it.
 */
import vm from "node:vm";
import { LibraryBoundError, LibraryError, SimulationEscapeError } from "./errors.js";
import { InputError } from "../errors.js";
import { PRELUDE_SOURCE } from "./prelude.js";
import { Seal, type SealPrelude } from "./seal.js";
import { BUFFER_METHODS, BUFFER_STATICS, hostBridge } from "./bridge.js";
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

export interface PreludeExports extends SealPrelude {
  promisify: (fn: unknown) => unknown;
  callbackify: (fn: unknown) => unknown;
  timersPromises: Record<string, unknown>;
  settle: (start: () => unknown, done: (ok: boolean, value: unknown) => void) => void;
  queueMicrotask: (fn: () => void) => void;
  nextTick: (fn: () => void) => void;
  /** The turn's reaction count (element 0), reset by the host at each turn. */
  turnCounts: Int32Array;
  makeRequire(req: (id: string) => unknown, resolve: (id: string) => unknown): unknown;
  makeModule(filename: string): { exports: unknown; loaded: boolean };
  /** The realm's globals (realm values), for the host to put on the context's global object. */
  globals: Record<string, unknown>;
  /** Globals built on first use: realm accessor functions. */
  lazyGlobals: Record<string, { get(): unknown; set(v: unknown): void }>;
}

/** Rounds of (ticks, drain, host callbacks) in one turn before it is called a livelock. */
const TURN_ROUNDS_MAX = 100_000;
const DRAIN = new vm.Script("undefined", { filename: "lockstep:drain" });
/** Node's Buffer methods, written into the prelude's Buffer class body (they are identifiers). */
const BUFFER_CLASS_BODY = [
  ...BUFFER_METHODS.map((m) => `${m}(...a) { return host.bufferCall(${JSON.stringify(m)}, this, a); }`),
  ...BUFFER_STATICS.map((m) => `static ${m}(...a) { return host.bufferStatic(${JSON.stringify(m)}, a); }`),
].join("\n      ");
const PRELUDE = new vm.Script(PRELUDE_SOURCE.replace("/*BUFFER_METHODS*/", BUFFER_CLASS_BODY), { filename: "lockstep:prelude" });

export class Realm {
  readonly context: vm.Context;
  readonly prelude: PreludeExports;
  readonly seal: Seal;
  /** The realm's own intrinsics, for host code that builds values library code sees. */
  readonly Promise: PromiseConstructor;
  readonly Error: ErrorConstructor;
  readonly Array: ArrayConstructor;
  private readonly JSON: JSON;
  readonly timers: RealmTimers;
  private depth = 0;
  private after: Array<() => void> = [];
  /** process.nextTick's queue: callback, arguments, callback, arguments... */
  private ticks: unknown[] = [];
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
    this.Promise = vm.runInContext("Promise", this.context) as PromiseConstructor;
    this.Error = vm.runInContext("Error", this.context) as ErrorConstructor;
    this.Array = vm.runInContext("Array", this.context) as ArrayConstructor;
    this.JSON = vm.runInContext("JSON", this.context) as JSON;
    const realmDate = vm.runInContext("Date", this.context) as DateConstructor;
    this.timers = new RealmTimers(
      host.setTimer,
      (what, fn) => this.enter(what, fn),
      (kind) => (kind === IMMEDIATE ? this.countImmediate() : this.countTimer()),
    );
    const bridge = hostBridge(this, () => this.seal);
    this.prelude = (PRELUDE.runInContext(this.context) as (h: unknown) => PreludeExports)(bridge);
    Object.assign(sandbox, this.prelude.globals);
    for (const [name, { get, set }] of Object.entries(this.prelude.lazyGlobals))
      Object.defineProperty(sandbox, name, {
        get,
        set,
        configurable: true,
        enumerable: false,
      });
    this.seal = new Seal(this.prelude, this.Array, realmDate);
    Realm.live.add(this.Promise);
  }

  /** Promise constructors of live realms: their unhandled rejections are the library's, not ours. */
  static readonly live = new WeakSet<object>();

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
    return this.seal.error(e);
  }

  /** Stop the run with a bound error; library code gets a realm error of the same message. */
  bound(what: string, detail: string): Error {
    const e = new LibraryBoundError(this.host.processId, what, detail);
    this.failure ??= e;
    return this.seal.error(e);
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
    this.depth++;
    this.clockReads = 0;
    this.prelude.turnCounts[0] = 0;
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
      if (this.ticks.length > 0) this.guard(`${where} (process.nextTick callbacks)`, () => this.runTicks());
      if (this.failure) return;
      try {
        // No vm timeout here: it starts a watchdog thread per call (~60x the cost of the
        // drain). The reaction budget (prelude.ts) bounds then-chains instead.
        DRAIN.runInContext(this.context);
      } catch (e) {
        this.fail(new LibraryError(this.host.processId, `${where} (promise continuations)`, this.hostError(e)));
        return;
      }
      if (this.ticks.length > 0) continue;
      if (this.after.length === 0) return;
      const batch = this.after;
      this.after = [];
      for (const f of batch) this.guard(where, f);
    }
  }

  /** Queue a process.nextTick callback (a realm function and its arguments). */
  queueTick(fn: (...a: unknown[]) => unknown, args: unknown[]): void {
    this.ticks.push(fn, args);
  }

  /** Every queued tick, and those they queue, in order. */
  private runTicks(): void {
    const q = this.ticks;
    for (let i = 0; i < q.length; i += 2) {
      const fn = q[i] as (...a: unknown[]) => unknown;
      const args = q[i + 1] as unknown[];
      q[i] = q[i + 1] = undefined;
      fn(...args);
    }
    this.ticks = [];
  }

  /** The host error a realm error stands for, if it was made from one. */
  private hostError(e: unknown): unknown {
    return e !== null && typeof e === "object" ? (this.seal.hostErrorOf.get(e) ?? e) : e;
  }

  private guard<T>(where: string, fn: () => T): T | undefined {
    try {
      return fn();
    } catch (thrown) {
      const e = this.hostError(thrown);
      // An escape, or a user's input error (an adapter that cannot be found): kept as it is.
      if (e instanceof SimulationEscapeError || e instanceof LibraryBoundError || e instanceof InputError) this.fail(e as Error);
      else if (this.failure === undefined) this.fail(e instanceof LibraryError ? e : new LibraryError(this.host.processId, where, e));
      return undefined;
    }
  }

  /** A realm-side copy of JSON data (objects whose prototypes are the realm's). */
  fromJson(v: unknown): unknown {
    return this.JSON.parse(JSON.stringify(v));
  }

  /** Compile and run a CommonJS-wrapped script in this realm. */
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

  /** Fill a typed array from the seeded stream (crypto.getRandomValues). */
  fillRandom<A extends ArrayBufferView>(a: A): A {
    const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(this.host.random() * 256);
    return a;
  }

  /** `n` bytes of the seeded stream, as a realm Buffer. */
  randomBytes(n: number): Uint8Array {
    return this.fillRandom(this.prelude.bufferOf(n));
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
 * crash that process, not lockstep); the host must not crash on them. They are noticed
 * by V8 at host-tick granularity, so they cannot be part of a deterministic history.
 */
let rejectionHookInstalled = false;
export function installRejectionHook(): void {
  if (rejectionHookInstalled) return;
  rejectionHookInstalled = true;
  process.on("unhandledRejection", (reason, promise) => {
    if (Realm.live.has(Object.getPrototypeOf(promise)?.constructor ?? {})) return;
    // Not ours: behave as Node does by default.
    throw reason;
  });
}
