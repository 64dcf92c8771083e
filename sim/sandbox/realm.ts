/**
 * A sandbox realm: a V8 context in which unmodified library code (a lock library, a
 * user's own module) runs as one simulated process. Everything in it that could read
 * the host — Date, performance.now, process.hrtime, timers, Math.random, crypto's
 * randomness — is that process's virtual clock, timer or seeded stream instead.
 *
 * Turns: host code enters the realm (a timer fires, a reply arrives, a fiber calls the
 * library) through `enter`, which afterwards drains the realm's own microtask queue
 * (the context is made with microtaskMode "afterEvaluate", so running an empty script
 * runs every pending continuation, synchronously). So a promise chain runs to its end
 * before the next simulated event, and the run stays one synchronous, seeded loop.
 *
 * Anything that would leave the simulation (a real socket, the host clock, a real
 * timer) throws a SimulationEscapeError naming the call; it is kept and re-thrown from
 * `enter`, so a library that catches it cannot hide it.
 */
import vm from "node:vm";
import { LibraryError, SimulationEscapeError } from "./errors.js";
import { InputError } from "../errors.js";
import { PRELUDE_SOURCE } from "./prelude.js";

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

interface PreludeExports {
  promisify: (fn: unknown) => unknown;
  callbackify: (fn: unknown) => unknown;
  timersPromises: Record<string, unknown>;
  settle: (start: () => unknown, done: (ok: boolean, value: unknown) => void) => void;
  queueMicrotask: (fn: () => void) => void;
}

/** Rounds of (drain, host callbacks) in one turn before it is called a livelock. */
const TURN_ROUNDS_MAX = 100_000;
const DRAIN = new vm.Script("undefined", { filename: "lockstep:drain" });
const PRELUDE = new vm.Script(PRELUDE_SOURCE, { filename: "lockstep:prelude" });

/** A Node-like Timeout object, so libraries can call unref()/refresh() on it. */
class VirtualTimeout {
  cancelled = false;
  handle: { cancel(): void } | undefined;
  constructor(
    readonly id: number,
    readonly arm: (t: VirtualTimeout) => void,
  ) {}
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  hasRef(): boolean {
    return true;
  }
  refresh(): this {
    this.handle?.cancel();
    if (!this.cancelled) this.arm(this);
    return this;
  }
  close(): this {
    this.cancelled = true;
    this.handle?.cancel();
    return this;
  }
  [Symbol.toPrimitive](): number {
    return this.id;
  }
}

export class Realm {
  readonly context: vm.Context;
  readonly prelude: PreludeExports;
  /** The realm's own intrinsics, for host code that builds values library code sees. */
  readonly Promise: PromiseConstructor;
  readonly Error: ErrorConstructor;
  readonly Array: ArrayConstructor;
  private readonly JSON: JSON;
  private readonly timers = new Map<number, VirtualTimeout>();
  private nextTimerId = 1;
  private depth = 0;
  private after: Array<() => void> = [];
  private failure: Error | undefined;

  constructor(readonly host: RealmHost) {
    const sandbox: Record<string, unknown> = {};
    this.context = vm.createContext(sandbox, {
      name: `lockstep:${host.processId}`,
      microtaskMode: "afterEvaluate",
      codeGeneration: { strings: true, wasm: false },
    });
    const bridge = {
      wallMs: () => Math.floor(host.wallMs()),
      random: () => host.random(),
    };
    this.prelude = (PRELUDE.runInContext(this.context) as (h: unknown) => PreludeExports)(bridge);
    this.Promise = vm.runInContext("Promise", this.context) as PromiseConstructor;
    this.Error = vm.runInContext("Error", this.context) as ErrorConstructor;
    this.Array = vm.runInContext("Array", this.context) as ArrayConstructor;
    this.JSON = vm.runInContext("JSON", this.context) as JSON;
    this.installGlobals(sandbox);
    Realm.live.add(this.Promise);
  }

  /** Promise constructors of live realms: their unhandled rejections are the library's, not ours. */
  static readonly live = new WeakSet<object>();

  /** Throws (and remembers) an escape; `enter` re-throws it even if library code caught it. */
  escape(call: string, detail = ""): never {
    const e = new SimulationEscapeError(call, this.host.processId, detail);
    this.failure ??= e;
    throw e;
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
   * every promise continuation and every `later` callback until none is left.
   */
  enter<T>(where: string, fn: () => T): T | undefined {
    if (this.depth > 0) return this.guard(where, fn);
    this.depth++;
    try {
      const result = this.guard(where, fn);
      for (let round = 0; ; round++) {
        if (round >= TURN_ROUNDS_MAX) this.fail(new LibraryError(this.host.processId, where, new Error(`no quiet point after ${TURN_ROUNDS_MAX} rounds of callbacks (a livelock?)`)));
        if (this.failure) break;
        try {
          // No vm timeout here: it starts a watchdog thread per call (~60x the cost of the
          // drain). A promise chain that never ends is the one loop this cannot bound.
          DRAIN.runInContext(this.context);
        } catch (e) {
          this.fail(new LibraryError(this.host.processId, `${where} (promise continuations)`, e));
          break;
        }
        if (this.after.length === 0) break;
        const batch = this.after;
        this.after = [];
        for (const f of batch) this.guard(where, f);
      }
      if (this.failure) throw this.failure;
      return result;
    } finally {
      this.depth--;
    }
  }

  private guard<T>(where: string, fn: () => T): T | undefined {
    try {
      return fn();
    } catch (e) {
      // An escape, or a user's input error (an adapter that cannot be found): kept as it is.
      if (e instanceof SimulationEscapeError || e instanceof InputError) this.fail(e as Error);
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

  // ---- timers on the process's monotonic clock -------------------------------------

  private armTimer(fn: (...a: unknown[]) => unknown, delayMs: unknown, args: unknown[], repeat: boolean, what: string): VirtualTimeout {
    const ms = Number(delayMs);
    // Node: a delay that is not a number in [1, 2^31-1] becomes 1 ms.
    const delay = Number.isFinite(ms) && ms >= 1 && ms <= 0x7fffffff ? Math.trunc(ms) : 1;
    const t = new VirtualTimeout(this.nextTimerId++, (self) => {
      self.handle = this.host.setTimer(delay * 1000, () => {
        if (self.cancelled) return;
        if (repeat) self.arm(self);
        else this.timers.delete(self.id);
        this.enter(what, () => fn(...args));
      });
    });
    this.timers.set(t.id, t);
    t.arm(t);
    return t;
  }

  private clearTimer(t: unknown): void {
    const id = t instanceof VirtualTimeout ? t.id : typeof t === "number" ? t : typeof t === "string" ? Number(t) : NaN;
    const timer = this.timers.get(id);
    if (!timer) return;
    timer.close();
    this.timers.delete(id);
  }

  private checkCallback(fn: unknown, name: string): (...a: unknown[]) => unknown {
    if (typeof fn !== "function") {
      throw new (this.Error as unknown as typeof TypeError)(`The "callback" argument to ${name} must be of type function`);
    }
    return fn as (...a: unknown[]) => unknown;
  }

  private installGlobals(g: Record<string, unknown>): void {
    const host = this.host;
    const monoMs = (): number => host.monoUs() / 1000;
    g.global = g;
    g.setTimeout = (fn: unknown, ms?: unknown, ...args: unknown[]) => this.armTimer(this.checkCallback(fn, "setTimeout"), ms, args, false, "a setTimeout callback");
    g.setInterval = (fn: unknown, ms?: unknown, ...args: unknown[]) => this.armTimer(this.checkCallback(fn, "setInterval"), ms, args, true, "a setInterval callback");
    g.setImmediate = (fn: unknown, ...args: unknown[]) => {
      const f = this.checkCallback(fn, "setImmediate");
      const t = new VirtualTimeout(this.nextTimerId++, (self) => {
        self.handle = host.setTimer(0, () => {
          if (self.cancelled) return;
          this.timers.delete(self.id);
          this.enter("a setImmediate callback", () => f(...args));
        });
      });
      this.timers.set(t.id, t);
      t.arm(t);
      return t;
    };
    g.clearTimeout = g.clearInterval = g.clearImmediate = (t: unknown) => this.clearTimer(t);
    g.queueMicrotask = this.prelude.queueMicrotask;
    const hrtime = (prev?: [number, number]): [number, number] => {
      const ns = Math.round(host.monoUs() * 1000);
      let s = Math.floor(ns / 1e9);
      let n = ns - s * 1e9;
      if (prev) {
        s -= prev[0];
        n -= prev[1];
        if (n < 0) {
          s--;
          n += 1e9;
        }
      }
      return [s, n];
    };
    hrtime.bigint = () => BigInt(Math.round(host.monoUs() * 1000));
    const noop = (): void => undefined;
    const emitterStub = { on: () => processShim, once: () => processShim, off: () => processShim, addListener: () => processShim, removeListener: () => processShim, removeAllListeners: () => processShim, emit: () => false, listeners: () => [], listenerCount: () => 0 };
    const processShim: Record<string, unknown> = {
      ...emitterStub,
      env: { NODE_ENV: "production" },
      argv: ["node", "lockstep-sandbox"],
      execArgv: [],
      platform: "linux",
      arch: "x64",
      pid: 1,
      ppid: 0,
      title: "node",
      version: process.version,
      versions: { ...process.versions },
      release: { name: "node" },
      nextTick: (fn: unknown, ...args: unknown[]) => {
        const f = this.checkCallback(fn, "process.nextTick");
        this.prelude.queueMicrotask(() => f(...args));
      },
      hrtime,
      uptime: () => monoMs() / 1000,
      cwd: () => "/",
      memoryUsage: () => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }),
      emitWarning: noop,
      exit: (code?: number) => this.escape(`process.exit(${code ?? ""})`),
      abort: () => this.escape("process.abort()"),
      kill: () => this.escape("process.kill()"),
      stdout: { write: () => true, isTTY: false },
      stderr: { write: () => true, isTTY: false },
    };
    g.process = processShim;
    g.performance = { now: monoMs, timeOrigin: 0, mark: noop, measure: noop, clearMarks: noop, clearMeasures: noop };
    g.console = Object.fromEntries(["log", "info", "warn", "error", "debug", "trace", "dir", "table", "time", "timeEnd", "group", "groupEnd", "assert", "count"].map((k) => [k, noop]));
    g.Buffer = Buffer;
    g.TextEncoder = TextEncoder;
    g.TextDecoder = TextDecoder;
    g.URL = URL;
    g.URLSearchParams = URLSearchParams;
    g.AbortController = AbortController;
    g.AbortSignal = new Proxy(AbortSignal, {
      get: (target, prop, recv) => (prop === "timeout" ? () => this.escape("AbortSignal.timeout()", "use setTimeout and an AbortController") : Reflect.get(target, prop, recv)),
    });
    g.Event = Event;
    g.EventTarget = EventTarget;
    g.structuredClone = structuredClone;
    g.atob = atob;
    g.btoa = btoa;
    g.crypto = { getRandomValues: (a: ArrayBufferView) => this.fillRandom(a), randomUUID: () => this.randomUUID(), get subtle() { return undefined; } };
    // GC-driven APIs would make runs depend on the host's collector: hold strongly, never finalize.
    g.WeakRef = class WeakRef<T extends object> {
      constructor(private readonly target: T) {}
      deref(): T {
        return this.target;
      }
    };
    g.FinalizationRegistry = class FinalizationRegistry {
      register(): void {}
      unregister(): boolean {
        return false;
      }
    };
    for (const name of ["fetch", "WebSocket", "XMLHttpRequest"]) g[name] = () => this.escape(`${name}()`);
  }

  /** Fill a typed array from the seeded stream (crypto.getRandomValues). */
  fillRandom<A extends ArrayBufferView>(a: A): A {
    const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(this.host.random() * 256);
    return a;
  }

  randomBytes(n: number): Buffer {
    return this.fillRandom(Buffer.alloc(n));
  }

  /** An RFC 4122 version-4 UUID from the seeded stream. */
  randomUUID(): string {
    const b = this.randomBytes(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = b.toString("hex");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
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
