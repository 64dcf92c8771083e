/**
 * JavaScript evaluated inside every sandbox realm before library code. Every global
 * library code sees is built here, of the realm's own intrinsics, so that no host
 * object, function or prototype is reachable from it (a host function's `.constructor`
 * is the host's Function, which evaluates code with the real `process` in scope).
 * Host services arrive only through `host`, the bridge object this closure keeps to
 * itself; its functions take and return primitives or realm values.
 *
 * Also made of realm intrinsics so that their continuations stay on the realm's own
 * microtask queue: the virtual Date, promisify, timers/promises, nextTick.
 *
 * Time zone and locale: Intl and the locale-sensitive methods default to en-US and the
 * UTC zone (the host process is also set to TZ=UTC; see realm.ts), so a seed replays
 * the same on every machine.
 */
export const PRELUDE_SOURCE = String.raw`(function (host) {
  "use strict";
  const G = globalThis;
  // ---- primordials: what the boundary calls after library code has run, captured now,
  // so replacing Array.prototype.map, Reflect or globalThis.Promise changes nothing here.
  const { defineProperty, getPrototypeOf, setPrototypeOf, create: ObjectCreate, keys: ObjectKeys, freeze } = Object;
  const { apply: ReflectApply, construct: ReflectConstruct } = Reflect;
  const { isArray } = Array;
  const isView = ArrayBuffer.isView;
  const FunctionPrototype = Function.prototype;
  const StringCtor = String;
  const NumberCtor = Number;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const ErrorToString = Error.prototype.toString;
  const WeakMapCtor = WeakMap;
  const [WeakMapGet, WeakMapSet, WeakMapHas] = [WeakMap.prototype.get, WeakMap.prototype.set, WeakMap.prototype.has];
  const PromiseCtor = Promise;
  const PromiseResolve = Promise.resolve;
  const StringStartsWith = String.prototype.startsWith;
  const StringIncludes = String.prototype.includes;
  const StringSplit = String.prototype.split;
  const StringTrim = String.prototype.trim;
  const StringReplace = String.prototype.replace;
  const JSONStringify = JSON.stringify;
  const mapGet = (m, k) => ReflectApply(WeakMapGet, m, [k]);
  const mapSet = (m, k, v) => ReflectApply(WeakMapSet, m, [k, v]);
  const define = (o, k, v) => defineProperty(o, k, { __proto__: null, value: v, writable: true, configurable: true, enumerable: false });
  const escape = (call, detail) => { throw host.escape(call, detail || ""); };
  // The globals, which the host puts on the context's global object itself (an assignment
  // from inside goes through the context's interceptors, which costs). Those in "lazy"
  // are built on first use (Intl, Event and its kin, the host-backed classes, Buffer): a
  // realm is made per simulated process, and most library code never touches them.
  const out = {};
  const lazy = {};
  const lazyGlobal = (name, build) => {
    lazy[name] = {
      get: build,
      set() {},
    };
  };

  // ---- clocks ---------------------------------------------------------------------
  const RealDate = Date;
  function VDate(...args) {
    if (!new.target) return new RealDate(host.wallMs()).toString();
    return ReflectConstruct(RealDate, args.length === 0 ? [host.wallMs()] : args, new.target);
  }
  // Not RealDate: from there its now() and new() read the host's clock.
  setPrototypeOf(VDate, FunctionPrototype);
  VDate.prototype = RealDate.prototype;
  VDate.now = function now() { return host.wallMs(); };
  VDate.parse = RealDate.parse;
  VDate.UTC = RealDate.UTC;
  out.Date = VDate;
  out.Error = ErrorCtor;
  Math.random = function random() { return host.random(); };
  // One thread: nothing could ever notify a waiter, and a wait's timeout is the host's clock.
  Atomics.wait = function wait() { escape("Atomics.wait()", "it blocks the simulator's only thread; nothing in a simulated process can notify it"); };
  Atomics.waitAsync = function waitAsync() { escape("Atomics.waitAsync()", "its timeout is the host's clock"); };
  const monoMs = () => host.monoMs();

  // ---- fixed locale: Intl and toLocale* default to en-US in UTC; a format with no date is now --
  const LOCALE = "en-US";
  // Any other argument is resolved here, then en-US: an empty list, or one ICU lacks, would
  // otherwise fall back to the host's LANG. Invalid tags throw as they would.
  const getCanonicalLocales = Intl.getCanonicalLocales;
  const loc = (l) => {
    if (l === undefined) return LOCALE;
    const list = ReflectApply(getCanonicalLocales, Intl, [l]);
    defineProperty(list, list.length, { __proto__: null, value: LOCALE, writable: true, enumerable: true, configurable: true });
    return list;
  };
  const zoned = (o) => (o === undefined ? { timeZone: "UTC" } : o !== null && typeof o === "object" && o.timeZone === undefined ? { ...o, timeZone: "UTC" } : o);
  // Intl's constructors are patched when library code first names Intl (V8 builds them lazily).
  const RealIntl = Intl;
  function fixIntl() {
    const RealDTF = RealIntl.DateTimeFormat;
    function DateTimeFormat(locales, options) { return ReflectConstruct(RealDTF, [loc(locales), zoned(options)], new.target || DateTimeFormat); }
    DateTimeFormat.prototype = RealDTF.prototype;
    DateTimeFormat.supportedLocalesOf = RealDTF.supportedLocalesOf;
    define(RealDTF.prototype, "constructor", DateTimeFormat);
    const fmtGet = Object.getOwnPropertyDescriptor(RealDTF.prototype, "format").get;
    Object.defineProperty(RealDTF.prototype, "format", { configurable: true, get() { const f = fmtGet.call(this); return (d) => f(d === undefined ? host.wallMs() : d); } });
    const ftp = RealDTF.prototype.formatToParts;
    define(RealDTF.prototype, "formatToParts", function formatToParts(d) { return ftp.call(this, d === undefined ? host.wallMs() : d); });
    RealIntl.DateTimeFormat = DateTimeFormat;
    for (const name of ["NumberFormat", "Collator", "PluralRules", "RelativeTimeFormat", "ListFormat", "DisplayNames", "Segmenter"]) {
      const Real = RealIntl[name];
      if (typeof Real !== "function") continue;
      const Fixed = function (locales, options) { return ReflectConstruct(Real, [loc(locales), options], new.target || Fixed); };
      Fixed.prototype = Real.prototype;
      Fixed.supportedLocalesOf = Real.supportedLocalesOf;
      define(Real.prototype, "constructor", Fixed);
      RealIntl[name] = Fixed;
    }
    return RealIntl;
  }
  lazyGlobal("Intl", fixIntl);
  // One defineProperties per prototype: each change to an intrinsic prototype costs a
  // copy of its property table, paid once per realm.
  const method = (v) => ({ value: v, writable: true, configurable: true, enumerable: false });
  const dp = RealDate.prototype;
  const [dLs, dLds, dLts, dTs, dTts] = [dp.toLocaleString, dp.toLocaleDateString, dp.toLocaleTimeString, dp.toString, dp.toTimeString];
  // The zone's name in toString follows the host's ICU locale: fixed to the en-US name.
  const zoneName = (s) => s.replace(/ \([^()]*\)$/, " (Coordinated Universal Time)");
  Object.defineProperties(dp, {
    constructor: method(VDate),
    toLocaleString: method(function toLocaleString(l, o) { return dLs.call(this, loc(l), zoned(o)); }),
    toLocaleDateString: method(function toLocaleDateString(l, o) { return dLds.call(this, loc(l), zoned(o)); }),
    toLocaleTimeString: method(function toLocaleTimeString(l, o) { return dLts.call(this, loc(l), zoned(o)); }),
    toString: method(function toString() { return zoneName(dTs.call(this)); }),
    toTimeString: method(function toTimeString() { return zoneName(dTts.call(this)); }),
  });
  const nLs = Number.prototype.toLocaleString;
  define(Number.prototype, "toLocaleString", function toLocaleString(l, o) { return nLs.call(this, loc(l), o); });
  const bLs = BigInt.prototype.toLocaleString;
  define(BigInt.prototype, "toLocaleString", function toLocaleString(l, o) { return bLs.call(this, loc(l), o); });
  const sp = String.prototype;
  const [sLc, sLu, sLl] = [sp.localeCompare, sp.toLocaleUpperCase, sp.toLocaleLowerCase];
  Object.defineProperties(sp, {
    localeCompare: method(function localeCompare(that, l, o) { return sLc.call(this, that, loc(l), o); }),
    toLocaleUpperCase: method(function toLocaleUpperCase(l) { return sLu.call(this, loc(l)); }),
    toLocaleLowerCase: method(function toLocaleLowerCase(l) { return sLl.call(this, loc(l)); }),
  });

  // ---- microtasks, ticks and the per-turn budget ---------------------------------------
  // The turn's count, in memory the host resets at each turn without a call into the realm.
  const turnCounts = new Int32Array(2);
  const REACTIONS_MAX = host.reactionsMax;
  const realThen = Promise.prototype.then;
  define(Promise.prototype, "then", function then(onFulfilled, onRejected) {
    if (++turnCounts[0] > REACTIONS_MAX) host.overBudget(turnCounts[0]);
    return ReflectApply(realThen, this, [onFulfilled, onRejected]);
  });
  const thenOf = (p, f, r) => ReflectApply(realThen, p, [f, r]);
  // Handlers are wrapped in realm closures: V8 queues a reaction on the queue of the
  // handler's own context, so a host function passed straight to .then would run on
  // the host's queue, after the turn.
  const resolved = Promise.resolve();
  const queueMicrotask = function queueMicrotask(fn) {
    if (typeof fn !== "function") throw new TypeError('The "callback" argument must be of type function');
    thenOf(resolved, () => fn());
  };
  out.queueMicrotask = queueMicrotask;
  // The tick queue: the host runs it (runTicks) before the promise reactions, as Node's
  // processTicksAndRejections does; turnCounts[1] says how many wait.
  let ticks = [];
  function nextTick(fn, ...args) {
    if (typeof fn !== "function") throw new TypeError('The "callback" argument must be of type function');
    if (++turnCounts[0] > REACTIONS_MAX) host.overBudget(turnCounts[0]);
    defineProperty(ticks, ticks.length, { __proto__: null, value: fn, writable: true, enumerable: true, configurable: true });
    defineProperty(ticks, ticks.length, { __proto__: null, value: args, writable: true, enumerable: true, configurable: true });
    turnCounts[1]++;
  }
  // Every queued tick, and those they queue, in order; a throw stops the run (the host's guard).
  function runTicks() {
    const q = ticks;
    for (let i = 0; i < q.length; i += 2) {
      const fn = q[i];
      const args = q[i + 1];
      q[i] = q[i + 1] = undefined;
      ReflectApply(fn, undefined, args);
    }
    ticks = [];
    turnCounts[1] = 0;
  }


  // ---- timers on the process's monotonic clock ------------------------------------
  // The table is the host's (timers.ts): these are thin, as they are called often.
  class Timeout {
    #id;
    constructor(id) { this.#id = id; }
    ref() { return this; }
    unref() { return this; }
    hasRef() { return true; }
    refresh() { host.refreshTimer(this.#id); return this; }
    close() { host.clearTimer(this.#id); return this; }
    [Symbol.toPrimitive]() { return this.#id; }
    static idOf(t) { return #id in t ? t.#id : t; }
  }
  const idOf = Timeout.idOf;
  delete Timeout.idOf;
  // Coerced here: the host takes a number, never calls a library valueOf.
  const delayOf = (ms) => (typeof ms === "number" ? ms : ms === undefined ? 1 : NumberCtor(ms));
  const notCallback = (name) => new TypeError('The "callback" argument to ' + name + " must be of type function");
  const clear = (t) => host.clearTimer(t !== null && typeof t === "object" ? idOf(t) : t);
  out.setTimeout = function setTimeout(fn, ms, ...args) {
    if (typeof fn !== "function") throw notCallback("setTimeout");
    return new Timeout(host.armTimer(fn, delayOf(ms), args, 0));
  };
  out.setInterval = function setInterval(fn, ms, ...args) {
    if (typeof fn !== "function") throw notCallback("setInterval");
    return new Timeout(host.armTimer(fn, delayOf(ms), args, 1));
  };
  out.setImmediate = function setImmediate(fn, ...args) {
    if (typeof fn !== "function") throw notCallback("setImmediate");
    return new Timeout(host.armTimer(fn, 0, args, 2));
  };
  out.clearTimeout = function clearTimeout(t) { clear(t); };
  out.clearInterval = function clearInterval(t) { clear(t); };
  out.clearImmediate = function clearImmediate(t) { clear(t); };

  // ---- process, performance, console ------------------------------------------------
  const noop = function () {};
  function hrtime(prev) {
    const ns = Math.round(host.monoMs() * 1e6);
    let s = Math.floor(ns / 1e9);
    let n = ns - s * 1e9;
    if (prev) {
      s -= prev[0];
      n -= prev[1];
      if (n < 0) { s--; n += 1e9; }
    }
    return [s, n];
  }
  hrtime.bigint = function bigint() { return BigInt(Math.round(host.monoMs() * 1e6)); };
  const memoryUsage = function memoryUsage() { return { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }; };
  memoryUsage.rss = () => 0;
  const process = {
    env: Object.freeze({ NODE_ENV: "production", TZ: "UTC", LANG: "en_US.UTF-8" }),
    argv: ["node", "lockstep-sandbox"], execArgv: [], platform: "linux", arch: "x64", pid: 1, ppid: 0, title: "node",
    version: host.nodeVersion, versions: JSON.parse(host.nodeVersions), release: { name: "node" }, exitCode: undefined,
    nextTick, hrtime, memoryUsage,
    uptime: function uptime() { return monoMs() / 1000; },
    // The simulated process's CPU time is its simulated time: nothing else runs it.
    cpuUsage: function cpuUsage(prev) { const us = Math.round(monoMs() * 1000); return { user: us - (prev ? prev.user : 0), system: 0 - (prev ? prev.system : 0) }; },
    cwd: function cwd() { return "/"; },
    emitWarning: noop,
    umask: () => 0o22,
    getuid: () => 1000, getgid: () => 1000, geteuid: () => 1000, getegid: () => 1000,
    resourceUsage: () => escape("process.resourceUsage()"),
    binding: (n) => escape("process.binding(" + JSON.stringify(String(n)) + ")"),
    dlopen: () => escape("process.dlopen()"),
    chdir: () => escape("process.chdir()"),
    exit: (code) => escape("process.exit(" + (code === undefined ? "" : code) + ")"),
    abort: () => escape("process.abort()"),
    kill: () => escape("process.kill()"),
    stdout: { write: () => true, isTTY: false, fd: 1 },
    stderr: { write: () => true, isTTY: false, fd: 2 },
  };
  for (const k of ["on", "once", "off", "addListener", "removeListener", "removeAllListeners", "prependListener", "setMaxListeners"]) process[k] = () => process;
  process.emit = () => false;
  process.listeners = () => [];
  process.listenerCount = () => 0;
  out.process = process;
  out.global = G;
  // Marks and measures keep host timing state; they stop the run rather than return made-up entries.
  out.performance = {
    now: function now() { return monoMs(); }, timeOrigin: 0,
    mark: () => escape("performance.mark()"), measure: () => escape("performance.measure()"),
    getEntries: () => [], getEntriesByName: () => [], getEntriesByType: () => [],
    clearMarks: noop, clearMeasures: noop,
    eventLoopUtilization: () => escape("performance.eventLoopUtilization()"),
    timerify: () => escape("performance.timerify()"),
    toJSON: () => ({ timeOrigin: 0 }),
  };
  out.console = {};
  for (const k of ["log", "info", "warn", "error", "debug", "trace", "dir", "table", "time", "timeEnd", "timeLog", "group", "groupEnd", "assert", "count"]) out.console[k] = noop;

  // ---- randomness ------------------------------------------------------------------
  const crypto = {
    getRandomValues: function getRandomValues(a) { return host.fillRandom(a); },
    randomUUID: function randomUUID() { return host.randomUUID(); },
    get subtle() { return undefined; },
  };
  out.crypto = crypto;
  // GC-driven APIs would make runs depend on the host's collector: hold strongly, never finalize.
  out.WeakRef = class WeakRef { #t; constructor(t) { this.#t = t; } deref() { return this.#t; } };
  out.FinalizationRegistry = class FinalizationRegistry { register() {} unregister() { return false; } };
  for (const name of ["fetch", "WebSocket", "XMLHttpRequest", "EventSource"]) out[name] = function () { escape(name + "()"); };

  // ---- Event, EventTarget, AbortController (timeStamp is the process's clock) -------------
  let events;
  const eventClasses = () => events || (events = buildEvents());
  function buildEvents() {
    class DOMException extends Error {
      constructor(message = "", name = "Error") { super(message); define(this, "name", name); }
    }
    class Event {
      #stop = false;
      constructor(type, init) {
        if (arguments.length === 0) throw new TypeError('The "type" argument must be specified');
        this.type = String(type);
        this.bubbles = !!(init && init.bubbles);
        this.cancelable = !!(init && init.cancelable);
        this.defaultPrevented = false;
        this.timeStamp = monoMs();
        this.target = null;
        this.currentTarget = null;
        this.isTrusted = false;
      }
      preventDefault() { if (this.cancelable) this.defaultPrevented = true; }
      stopImmediatePropagation() { this.#stop = true; }
      stopPropagation() {}
      static stopped(e) { return #stop in e && e.#stop; }
    }
    const stopped = Event.stopped;
    delete Event.stopped;
    class EventTarget {
      #listeners = new Map();
      addEventListener(type, fn, opts) {
        if (!fn) return;
        const once = !!(opts && typeof opts === "object" && opts.once);
        const list = this.#listeners.get(type) || [];
        if (list.some((l) => l.fn === fn)) return;
        list.push({ fn, once });
        this.#listeners.set(type, list);
        const signal = opts && typeof opts === "object" ? opts.signal : undefined;
        if (signal) signal.addEventListener("abort", () => this.removeEventListener(type, fn), { once: true });
      }
      removeEventListener(type, fn) {
        const list = this.#listeners.get(type);
        if (list) this.#listeners.set(type, list.filter((l) => l.fn !== fn));
      }
      dispatchEvent(event) {
        event.target = this;
        event.currentTarget = this;
        const handler = this["on" + event.type];
        const list = [...(this.#listeners.get(event.type) || [])];
        if (typeof handler === "function") list.push({ fn: handler, once: false });
        for (const l of list) {
          if (l.once) this.removeEventListener(event.type, l.fn);
          if (typeof l.fn === "function") l.fn.call(this, event);
          else if (l.fn && typeof l.fn.handleEvent === "function") l.fn.handleEvent(event);
          if (stopped(event)) break;
        }
        event.currentTarget = null;
        return !event.defaultPrevented;
      }
    }
    class AbortSignal extends EventTarget {
      #aborted = false; #reason = undefined;
      constructor(key) { super(); if (key !== kSignal) throw new TypeError("Illegal constructor"); this.onabort = null; }
      get aborted() { return this.#aborted; }
      get reason() { return this.#reason; }
      throwIfAborted() { if (this.#aborted) throw this.#reason; }
      static abortWith(s, reason) {
        if (s.#aborted) return;
        s.#aborted = true;
        s.#reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
        s.dispatchEvent(new Event("abort"));
      }
      static abort(reason) { const s = new AbortSignal(kSignal); abortWith(s, reason); return s; }
      // A timeout on the simulated process's clock, as everything else here.
      static timeout(ms) { const s = new AbortSignal(kSignal); out.setTimeout(() => abortWith(s, new DOMException("The operation was aborted due to timeout", "TimeoutError")), ms); return s; }
      static any(signals) {
        const s = new AbortSignal(kSignal);
        for (const x of signals) { if (x.aborted) { abortWith(s, x.reason); return s; } }
        for (const x of signals) x.addEventListener("abort", () => abortWith(s, x.reason), { once: true });
        return s;
      }
    }
    const kSignal = Symbol("signal");
    const abortWith = AbortSignal.abortWith;
    delete AbortSignal.abortWith;
    class AbortController {
      #signal = new AbortSignal(kSignal);
      get signal() { return this.#signal; }
      abort(reason) { abortWith(this.#signal, reason); }
    }
    return { Event, EventTarget, AbortSignal, AbortController, DOMException };
  }
  for (const name of ["Event", "EventTarget", "AbortSignal", "AbortController", "DOMException"]) lazyGlobal(name, () => eventClasses()[name]);


  // ---- values crossing to the host ----------------------------------------------------
  // What library code hands a host function is copied here first, by the prelude's own
  // code: primitives, byte views and ArrayBuffers as they are (the host reads them with its
  // own intrinsics), functions as opaque references (the host only hands them back to
  // invoke), arrays and objects as fresh dense arrays and null-prototype objects of the same.
  // Library getters and proxies run here, in the realm; the host never touches library objects.
  const ArrayBufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
  const isArrayBuffer = (v) => { try { ReflectApply(ArrayBufferByteLength, v, []); return true; } catch { return false; } };
  const DateToISOString = RealDate.prototype.toISOString;
  // Copies are made by Array.from (own data properties, never a library setter) and into
  // null-prototype objects, so the host reads them as plain data.
  const ArrayFrom = Array.from;
  const ArrayCtor = Array;
  // Deeper than this (a cycle included) is refused: no Node API a library calls takes such data.
  const COPY_DEPTH_MAX = 32;
  const copyIn = [];
  for (let d = 0; d <= COPY_DEPTH_MAX + 1; d++) copyIn[d] = (x) => copyOut(x, d);
  function copyOut(v, depth) {
    if (v === null || (typeof v !== "object" && typeof v !== "function")) return v;
    if (typeof v === "function") return depth === 0 ? v : undefined;
    if (depth > COPY_DEPTH_MAX) throw new TypeErrorCtor("a value too deep, or circular, to hand to a Node API in the simulator");
    if (isArray(v)) return ReflectApply(ArrayFrom, ArrayCtor, [v, copyIn[depth + 1]]);
    if (isView(v)) return v;
    const proto = getPrototypeOf(v);
    if (proto !== ObjectProto && proto !== null) {
      if (v instanceof RealDate) return ReflectApply(DateToISOString, v, []);
      if (isArrayBuffer(v)) return v;
    }
    const o = ObjectCreate(null);
    const ks = ObjectKeys(v);
    for (let i = 0; i < ks.length; i++) o[ks[i]] = copyOut(v[ks[i]], depth + 1);
    return o;
  }
  const ObjectProto = Object.prototype;
  // An array literal's elements are its own from the start: no library setter sees them.
  const copyArgs = (args) => {
    const n = args.length;
    if (n === 0) return [];
    if (n === 1) return [copyOut(args[0], 0)];
    if (n === 2) return [copyOut(args[0], 0), copyOut(args[1], 0)];
    if (n === 3) return [copyOut(args[0], 0), copyOut(args[1], 0), copyOut(args[2], 0)];
    return ReflectApply(ArrayFrom, ArrayCtor, [args, copyIn[0]]);
  };

  // ---- wrappers over host functions and host-backed classes --------------------------------
  // The host function is a number in the host's table: the realm holds no host function.
  function wrapFn(id, name) {
    return { [name]: function (...args) { return host.call(id, copyArgs(args), new.target !== undefined); } }[name];
  }
  // A host function a simulated client module calls once per command, with (link, head, tail,
  // callback): head and tail are copied by a spread into an array literal (own data
  // properties; V8 copies a plain array natively, where copyArgs runs realm code per
  // element), and the host takes them only when every element is a string or a number.
  function wrapArgvFn(id, name) {
    return { [name]: function (link, head, tail, done) {
      return host.callArgv(id, typeof link === "number" ? link : -1, argvCopy(head), tail === undefined ? undefined : argvCopy(tail), typeof done === "function" ? done : undefined);
    } }[name];
  }
  const argvCopy = (a) => (isArray(a) ? [...a] : null);
  // A realm class whose instances hold a host object's number (in a WeakMap only this
  // closure sees); methods and accessors run on it through the bridge.
  const BACKED = {
    URLSearchParams: [["append", "delete", "get", "getAll", "has", "set", "sort", "toString"], ["size"]],
    URL: [["toString", "toJSON"], ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "searchParams", "hash"], ["canParse"]],
    TextEncoder: [["encode", "encodeInto"], ["encoding"]],
    TextDecoder: [["decode"], ["encoding", "fatal", "ignoreBOM"]],
    StringDecoder: [["write", "end", "text"], ["encoding", "lastChar", "lastNeed", "lastTotal"]],
    Hash: [["update", "digest", "copy"], []],
    Hmac: [["update", "digest"], []],
    Stats: [["isFile", "isDirectory", "isSymbolicLink"], ["size", "mode"]],
  };
  const backed = {};
  const backedOf = (name) => backed[name] || (backed[name] = hostBacked(name, ...BACKED[name]));
  function hostBacked(name, methods, props, statics) {
    const inner = new WeakMapCtor();
    const handle = (o) => { const h = mapGet(inner, o); if (h === undefined) throw new TypeErrorCtor("Illegal invocation"); return h; };
    const C = { [name]: class { constructor(...a) { mapSet(inner, this, host.construct(name, copyArgs(a))); } } }[name];
    for (const m of methods) define(C.prototype, m, { [m](...a) { return host.invoke(handle(this), m, copyArgs(a)); } }[m]);
    for (const p of props) defineProperty(C.prototype, p, { __proto__: null, configurable: true, get() { return host.getProp(handle(this), p); }, set(v) { host.setProp(handle(this), p, copyOut(v, 1)); } });
    for (const m of statics || []) define(C, m, { [m](...a) { return host.applyStatic(name, m, copyArgs(a)); } }[m]);
    if (name === "URLSearchParams") iterable(C, handle);
    return { C, adopt(h) { const o = ObjectCreate(C.prototype); mapSet(inner, o, h); return o; } };
  }
  function iterable(C, handle) {
    const iterOf = (kind) => function () { return host.invokeList(handle(this), kind)[Symbol.iterator](); };
    define(C.prototype, "entries", iterOf("entries"));
    define(C.prototype, "keys", iterOf("keys"));
    define(C.prototype, "values", iterOf("values"));
    define(C.prototype, Symbol.iterator, C.prototype.entries);
    define(C.prototype, "forEach", function forEach(fn, thisArg) { for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this); });
  }
  for (const name of ["URL", "URLSearchParams", "TextEncoder", "TextDecoder"]) lazyGlobal(name, () => backedOf(name).C);

  // ---- Buffer: a realm Uint8Array whose methods run Node's on the same bytes ---------------
  let RealmBuffer;
  function buildBuffer() {
    // The class body lists Node's methods (realm.ts writes them in where BUFFER_METHODS
    // stands): a class literal is made from V8's template, where defining ~75 methods one
    // by one on the prototype cost more than the rest of the realm.
    class Buffer extends Uint8Array {
      toJSON() { return { type: "Buffer", data: Array.from(this) }; }
      static isBuffer(b) { return b instanceof Buffer; }
      /*BUFFER_METHODS*/
    }
    Buffer.poolSize = 8192;
    return Buffer;
  }
  const getBuffer = () => RealmBuffer || (RealmBuffer = buildBuffer());
  lazyGlobal("Buffer", getBuffer);
  const Uint8ArrayCtor = Uint8Array;
  const bufferView = (ab, off, len) => ReflectConstruct(Uint8ArrayCtor, [ab, off, len], getBuffer());
  const bufferOf = (len) => ReflectConstruct(Uint8ArrayCtor, [len], getBuffer());
  const TYPED = { Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array };
  const typedOf = (name, len) => new (TYPED[name] || Uint8ArrayCtor)(len);
  out.atob = wrapFn(host.fn.atob, "atob");
  out.btoa = wrapFn(host.fn.btoa, "btoa");
  out.structuredClone = wrapFn(host.fn.structuredClone, "structuredClone");

  // ---- modules --------------------------------------------------------------------
  function makeRequire(reqId, resolveId, cache) {
    const require = function require(id) { return host.call(reqId, copyArgs([id]), false); };
    require.resolve = function resolve(id) { return host.call(resolveId, copyArgs([id]), false); };
    require.cache = cache;
    return require;
  }
  const makeModule = (filename, dirname) => ({ exports: {}, filename, id: filename, path: dirname, loaded: false, children: [], paths: [] });
  // Runs a module's wrapper with its own module object; the host reads its exports back through exportsOf.
  function runModule(fn, m, require, filename, dirname) {
    const exports = m.exports;
    ReflectApply(fn, exports, [exports, require, m, filename, dirname]);
    m.loaded = true;
  }
  const exportsOf = (m) => m.exports;
  function makeError(name, message, code) {
    const e = new ErrorCtor(message);
    if (name !== "Error") define(e, "name", name);
    if (code !== undefined) defineProperty(e, "code", { __proto__: null, value: code, writable: true, enumerable: true, configurable: true });
    return e;
  }
  const freshObject = () => ({});
  const freshNull = () => ObjectCreate(null);
  const freshArray = () => [];
  // An object of key, value, key, value... (null-prototype when asked): one call from the host.
  function objectOf(nullProto, ...kv) {
    const o = nullProto ? ObjectCreate(null) : {};
    for (let i = 0; i < kv.length; i += 2) defineProperty(o, kv[i], { __proto__: null, value: kv[i + 1], writable: true, enumerable: true, configurable: true });
    return o;
  }
  const put = (o, k, v) => { defineProperty(o, k, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true }); };

  // ---- calls the host makes into library code ---------------------------------------------
  // The host calls library functions only through these, with primitives and realm values.
  const invoke = (fn, self, args) => ReflectApply(fn, self, args === undefined ? [] : args);
  // The same with up to three arguments passed as they are (one call from the host, not two).
  const call = (fn, n, a, b, c) => ReflectApply(fn, undefined, n === 0 ? [] : n === 1 ? [a] : n === 2 ? [a, b] : [a, b, c]);
  const stringify = (v) => JSONStringify(v);
  const list = (...a) => a;
  // A library method by name, as the library reads it (its getters run here).
  const invokeMethod = (self, name, args) => ReflectApply(self[name], self, args);
  // Named fields of a library value, copied into a fresh object: the host reads that, never
  // the library's own object.
  function readFields(v, names) {
    const o = ObjectCreate(null);
    if (v === null || (typeof v !== "object" && typeof v !== "function")) return o;
    for (let i = 0; i < names.length; i++) o[names[i]] = v[names[i]];
    return o;
  }
  // What a thrown or rejected value says, as one string, whatever it is (a proxy that throws
  // on every trap included): "Name: message", or with withStack the message and where
  // library code threw it.
  function describe(e, withStack) {
    try {
      if (e === null || typeof e !== "object" || !("message" in e)) return StringCtor(e);
      const message = StringCtor(e.message);
      if (!withStack) {
        const name = e.name;
        return (typeof name === "string" && name !== "Error" ? name + ": " : "") + message;
      }
      const stack = e.stack;
      const lines = typeof stack === "string" ? ReflectApply(StringSplit, stack, ["\n"]) : [];
      for (let i = 0; i < lines.length; i++) {
        const l = ReflectApply(StringTrim, lines[i], []);
        if (ReflectApply(StringStartsWith, l, ["at "])) return message + " (" + l + ")";
      }
      return message;
    } catch {
      return "a value whose properties throw";
    }
  }

  // ---- util.format and util.inspect, in the realm: an object's [util.inspect.custom] gets realm values only
  const kInspect = Symbol.for("nodejs.util.inspect.custom");
  const quote = (str) => "'" + ReflectApply(StringReplace, str, [/['\\\n]/g, (c) => (c === "\n" ? "\\n" : "\\" + c)]) + "'";
  function inspect(v, opts) {
    const depthMax = opts && typeof opts.depth === "number" ? opts.depth : opts && opts.depth === null ? Infinity : 2;
    const seen = [];
    const show = (x, depth) => {
      if (typeof x === "string") return quote(x);
      if (typeof x === "bigint") return x + "n";
      if (typeof x === "symbol") return ReflectApply(Symbol.prototype.toString, x, []);
      if (x === null || typeof x !== "object" && typeof x !== "function") return x === 0 && 1 / x < 0 ? "-0" : StringCtor(x);
      if (typeof x[kInspect] === "function") return StringCtor(x[kInspect](depthMax - depth, { depth: depthMax - depth }, inspect));
      if (typeof x === "function") return "[" + (x.prototype && /^class /.test(ReflectApply(FunctionPrototype.toString, x, [])) ? "class" : "Function") + ": " + (x.name || "(anonymous)") + "]";
      if (x instanceof ErrorCtor) return typeof x.stack === "string" ? x.stack : ReflectApply(ErrorToString, x, []);
      if (x instanceof RealDate) return ReflectApply(DateToISOString, x, []);
      if (seen.includes(x)) return "[Circular]";
      const ctor = x.constructor && typeof x.constructor.name === "string" ? x.constructor.name : null;
      const array = isArray(x);
      if (depth > depthMax) return array ? "[Array]" : "[" + (ctor || "Object") + "]";
      seen.push(x);
      const parts = [];
      if (x instanceof Map) for (const [k, val] of x) parts.push(show(k, depth + 1) + " => " + show(val, depth + 1));
      else if (x instanceof Set) for (const val of x) parts.push(show(val, depth + 1));
      else if (array) for (let i = 0; i < x.length; i++) parts.push(show(x[i], depth + 1));
      for (const k of ObjectKeys(x)) if (!array || !/^\d+$/.test(k)) parts.push((/^[A-Za-z_$][\w$]*$/.test(k) ? k : quote(k)) + ": " + show(x[k], depth + 1));
      seen.pop();
      const prefix = x instanceof Map ? "Map(" + x.size + ") " : x instanceof Set ? "Set(" + x.size + ") " : !array && ctor && ctor !== "Object" ? ctor + " " : ctor === null && !array ? "[Object: null prototype] " : "";
      if (parts.length === 0) return prefix + (array ? "[]" : "{}");
      return prefix + (array ? "[ " + parts.join(", ") + " ]" : "{ " + parts.join(", ") + " }");
    };
    return show(v, 0);
  }
  inspect.custom = kInspect;
  function format(f, ...args) {
    const one = (a) => (typeof a === "string" ? a : inspect(a));
    if (typeof f !== "string") return [f, ...args].map(one).join(" ");
    let i = 0;
    let text = ReflectApply(StringReplace, f, [/%[sdifjoOc%]/g, (m) => {
      if (m === "%%") return "%";
      if (i >= args.length) return m;
      const a = args[i++];
      if (m === "%s") return typeof a === "string" ? a : typeof a === "bigint" ? a + "n" : a !== null && typeof a === "object" ? inspect(a, { depth: 0 }) : StringCtor(a);
      if (m === "%d") return typeof a === "bigint" ? a + "n" : StringCtor(NumberCtor(a));
      if (m === "%i") return StringCtor(parseInt(a));
      if (m === "%f") return StringCtor(parseFloat(a));
      if (m === "%j") { try { return JSONStringify(a); } catch { return "[Circular]"; } }
      if (m === "%c") return "";
      return inspect(a);
    }]);
    for (; i < args.length; i++) text += " " + one(args[i]);
    return text;
  }

  // ---- promises the host reads by callback ----------------------------------------------
  const kCustom = Symbol.for("nodejs.util.promisify.custom");
  function promisify(fn) {
    if (typeof fn !== "function") throw new TypeError('The "original" argument must be of type function');
    if (fn[kCustom]) return fn[kCustom];
    return function (...args) {
      return new Promise((resolve, reject) => {
        fn.call(this, ...args, (err, ...values) => (err ? reject(err) : resolve(values.length > 1 ? values : values[0])));
      });
    };
  }
  promisify.custom = kCustom;
  function callbackify(fn) {
    return function (...args) {
      const cb = args.pop();
      Promise.resolve().then(() => fn.apply(this, args)).then((v) => cb(null, v), (e) => cb(e || new Error(String(e))));
    };
  }
  const timersPromises = {
    setTimeout: (ms, value) => new Promise((resolve) => out.setTimeout(() => resolve(value), ms)),
    setImmediate: (value) => new Promise((resolve) => out.setImmediate(() => resolve(value))),
  };
  // Runs a library method to its promise's end and tells the host (host.settled, by the
  // number it gave): host code never calls .then on a realm promise (its continuation would
  // go to the host's queue), nor hands library code anything of its own to call.
  function settle(self, name, args, token) {
    const started = new PromiseCtor((resolve) => resolve(invokeMethod(self, name, args)));
    thenOf(started, (value) => host.settled(token, true, value), (error) => host.settled(token, false, error));
  }
  // ---- stacks: what library code sees of the call stack ----------------------------------
  // Library modules run under virtual file names (the host's VIRTUAL_ROOT); a frame with any
  // other file — lockstep's host code, this prelude, the simulated clients — is left out, as
  // is a builtin frame not called from library code, so a stack reads the same in any install
  // folder and under any command. Node asks this realm's Error.prepareStackTrace for every
  // error of the realm: it is an accessor that always answers with the virtualizing
  // formatter, which hands library code's own formatter (if it set one) virtual CallSites.
  const VROOT = host.virtualRoot;
  const SITE_METHODS = ["getThis", "getTypeName", "getFunction", "getFunctionName", "getMethodName", "getFileName", "getLineNumber", "getColumnNumber",
    "getEvalOrigin", "isToplevel", "isEval", "isNative", "isConstructor", "isAsync", "isPromiseAll", "getPromiseIndex", "getScriptNameOrSourceURL",
    "getScriptHash", "getEnclosingColumnNumber", "getEnclosingLineNumber", "getPosition", "toString"];
  // The CallSite methods, taken from the first raw CallSite Node hands the formatter (library
  // code never sees a raw one, so never one it could have changed).
  let rawSite;
  const captureSiteMethods = (site) => {
    rawSite = ObjectCreate(null);
    const proto = getPrototypeOf(site);
    for (const m of SITE_METHODS) if (proto !== null && typeof proto[m] === "function") rawSite[m] = proto[m];
  };
  const ObjectPrototype = Object.prototype;
  const isRealmValue = (v) => {
    if (v === null || (typeof v !== "object" && typeof v !== "function")) return true;
    if (typeof v === "function") return getPrototypeOf(v) === FunctionPrototype;
    let p = v;
    for (let i = 0; i < 64; i++) { const q = getPrototypeOf(p); if (q === null) return p === ObjectPrototype || p === v; p = q; }
    return false;
  };
  // A virtual CallSite asks its raw CallSite (through the methods captured above) when
  // library code calls it: a stack is formatted often, its CallSites read rarely.
  const rawOf = new WeakMapCtor();
  const ask = (raw, m) => {
    let v;
    try { v = rawSite === undefined || rawSite[m] === undefined ? undefined : ReflectApply(rawSite[m], raw, []); } catch { v = undefined; }
    return (m === "getThis" || m === "getFunction") && !isRealmValue(v) ? undefined : v;
  };
  const isLibraryFile = (f) => ReflectApply(StringStartsWith, f, [VROOT]) || f === "node:events";
  class CallSite {}
  for (const m of SITE_METHODS) define(CallSite.prototype, m, { [m]() { const raw = mapGet(rawOf, this); return raw === undefined ? undefined : ask(raw, m); } }[m]);
  function virtualSites(raw) {
    const n = typeof raw === "object" && raw !== null && typeof raw.length === "number" ? raw.length : 0;
    if (rawSite === undefined && n > 0) captureSiteMethods(raw[0]);
    const keep = [];
    // A builtin frame (no file) belongs to library code when the next outer frame with a file does.
    let outerIsLibrary = false;
    for (let i = n - 1; i >= 0; i--) {
      const site = raw[i];
      const known = mapGet(rawOf, site);
      const r = known === undefined ? site : known;
      const f = ask(r, "getFileName");
      if (typeof f === "string" && f !== "") keep[i] = outerIsLibrary = isLibraryFile(f);
      else if (ask(r, "isEval")) { const o = ask(r, "getEvalOrigin"); keep[i] = typeof o === "string" && ReflectApply(StringIncludes, o, [VROOT]); }
      else keep[i] = outerIsLibrary;
    }
    const sites = [];
    for (let i = 0; i < n; i++) {
      if (!keep[i]) continue;
      const site = ObjectCreate(CallSite.prototype);
      const known = mapGet(rawOf, raw[i]);
      mapSet(rawOf, site, known === undefined ? raw[i] : known);
      put(sites, sites.length, site);
    }
    return sites;
  }
  function formatStack(e, sites) {
    let head;
    try { head = ReflectApply(ErrorToString, e, []); } catch { head = "Error"; }
    let text = StringCtor(head);
    for (let i = 0; i < sites.length; i++) text += "\n    at " + ask(mapGet(rawOf, sites[i]), "toString");
    return text;
  }
  let userPrepare;
  const prepareStackTrace = function prepareStackTrace(e, raw) {
    const sites = virtualSites(raw);
    return userPrepare === undefined ? formatStack(e, sites) : ReflectApply(userPrepare, ErrorCtor, [e, sites]);
  };
  defineProperty(ErrorCtor, "prepareStackTrace", {
    __proto__: null,
    configurable: false,
    enumerable: false,
    get() { return prepareStackTrace; },
    set(v) { userPrepare = v === prepareStackTrace || typeof v !== "function" ? undefined : v; },
  });
  return {
    promisify, callbackify, timersPromises, settle, queueMicrotask, nextTick, turnCounts, runTicks, invoke, invokeMethod, list, readFields, describe,
    globals: out, lazyGlobals: lazy, wrapFn, wrapArgvFn, backedOf, bufferView, bufferOf, typedOf, makeRequire, makeModule, runModule, exportsOf, makeError, freshObject, freshNull, freshArray, put,
    getBuffer, copyArgs, inspect, format, call, stringify, objectOf,
  };
})`;
