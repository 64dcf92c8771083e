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
  const define = (o, k, v) => Object.defineProperty(o, k, { value: v, writable: true, configurable: true, enumerable: false });
  const escape = (call, detail) => { throw host.escape(call, detail || ""); };
  // The globals, which the host puts on the context's global object itself (an assignment
  // from inside goes through the context's interceptors, which costs). Those in "lazy"
  // are built on first use (Intl, Event and its kin, the host-backed classes, Buffer): a
  // realm is made per simulated process, and most library code never touches them.
  const out = {};
  const lazy = {};
  const lazyGlobal = (name, build) => {
    lazy[name] = {
      get() { const v = build(); define(G, name, v); return v; },
      set(v) { define(G, name, v); },
    };
  };

  // ---- clocks ---------------------------------------------------------------------
  const RealDate = Date;
  function VDate(...args) {
    if (!new.target) return new RealDate(host.wallMs()).toString();
    return Reflect.construct(RealDate, args.length === 0 ? [host.wallMs()] : args, new.target);
  }
  Object.setPrototypeOf(VDate, RealDate);
  VDate.prototype = RealDate.prototype;
  VDate.now = function now() { return host.wallMs(); };
  VDate.parse = RealDate.parse;
  VDate.UTC = RealDate.UTC;
  out.Date = VDate;
  Math.random = function random() { return host.random(); };
  const monoMs = () => host.monoMs();

  // ---- fixed locale: Intl and toLocale* default to en-US in UTC; a format with no date is now --
  const LOCALE = "en-US";
  const loc = (l) => (l === undefined ? LOCALE : l);
  const zoned = (o) => (o === undefined ? { timeZone: "UTC" } : o !== null && typeof o === "object" && o.timeZone === undefined ? { ...o, timeZone: "UTC" } : o);
  // Intl's constructors are patched when library code first names Intl (V8 builds them lazily).
  const RealIntl = Intl;
  function fixIntl() {
    const RealDTF = RealIntl.DateTimeFormat;
    function DateTimeFormat(locales, options) { return Reflect.construct(RealDTF, [loc(locales), zoned(options)], new.target || DateTimeFormat); }
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
      const Fixed = function (locales, options) { return Reflect.construct(Real, [loc(locales), options], new.target || Fixed); };
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
  const turnCounts = new Int32Array(1);
  const REACTIONS_MAX = host.reactionsMax;
  const realThen = Promise.prototype.then;
  define(Promise.prototype, "then", function then(onFulfilled, onRejected) {
    if (++turnCounts[0] > REACTIONS_MAX) host.overBudget(turnCounts[0]);
    return realThen.call(this, onFulfilled, onRejected);
  });
  // Handlers are wrapped in realm closures: V8 queues a reaction on the queue of the
  // handler's own context, so a host function passed straight to .then would run on
  // the host's queue, after the turn.
  const resolved = Promise.resolve();
  const queueMicrotask = function queueMicrotask(fn) {
    if (typeof fn !== "function") throw new TypeError('The "callback" argument must be of type function');
    resolved.then(() => fn());
  };
  out.queueMicrotask = queueMicrotask;
  // The tick queue is the host's (realm.ts runs it before the promise reactions, as Node's
  // processTicksAndRejections does).
  function nextTick(fn, ...args) {
    if (typeof fn !== "function") throw new TypeError('The "callback" argument must be of type function');
    if (++turnCounts[0] > REACTIONS_MAX) host.overBudget(turnCounts[0]);
    host.queueTick(fn, args);
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
  const notCallback = (name) => new TypeError('The "callback" argument to ' + name + " must be of type function");
  const clear = (t) => host.clearTimer(t !== null && typeof t === "object" ? idOf(t) : t);
  out.setTimeout = function setTimeout(fn, ms, ...args) {
    if (typeof fn !== "function") throw notCallback("setTimeout");
    return new Timeout(host.armTimer(fn, ms, args, 0));
  };
  out.setInterval = function setInterval(fn, ms, ...args) {
    if (typeof fn !== "function") throw notCallback("setInterval");
    return new Timeout(host.armTimer(fn, ms, args, 1));
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


  // ---- wrappers over host functions and host-backed classes --------------------------------
  // A computed key names the function without a defineProperty per wrapper.
  function wrapFn(fn, name) {
    return { [name]: function (...args) { return host.apply(fn, this, args, new.target); } }[name];
  }
  // A realm class whose instances hold a host object (in a WeakMap only this closure
  // sees); methods and accessors run on it through the bridge.
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
    const inner = new WeakMap();
    const C = { [name]: class { constructor(...a) { inner.set(this, host.construct(name, a, new.target)); } } }[name];
    for (const m of methods) define(C.prototype, m, { [m](...a) { return host.invoke(inner.get(this), m, a); } }[m]);
    for (const p of props) Object.defineProperty(C.prototype, p, { configurable: true, get() { return host.getProp(inner.get(this), p); }, set(v) { host.setProp(inner.get(this), p, v); } });
    for (const m of statics || []) define(C, m, { [m](...a) { return host.applyStatic(name, m, a); } }[m]);
    if (name === "URLSearchParams") iterable(C, (o) => inner.get(o));
    return { C, adopt(h) { const o = Object.create(C.prototype); inner.set(o, h); return o; } };
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
  const bufferView = (ab, off, len) => Reflect.construct(Uint8Array, [ab, off, len], getBuffer());
  const bufferOf = (len) => Reflect.construct(Uint8Array, [len], getBuffer());
  const typedOf = (name, len) => new G[name](len);
  out.atob = wrapFn(host.atob, "atob");
  out.btoa = wrapFn(host.btoa, "btoa");
  out.structuredClone = wrapFn(host.structuredClone, "structuredClone");

  // ---- modules --------------------------------------------------------------------
  function makeRequire(req, resolve) {
    const require = function require(id) { return host.apply(req, undefined, [id], undefined); };
    require.resolve = function resolve_(id) { return host.apply(resolve, undefined, [id], undefined); };
    require.cache = {};
    return require;
  }
  const makeModule = (filename) => ({ exports: {}, filename, id: filename, loaded: false, children: [], paths: [] });
  function makeError(name, message, code) {
    const e = new Error(message);
    if (name !== "Error") define(e, "name", name);
    if (code !== undefined) e.code = code;
    return e;
  }
  const freshObject = () => ({});
  const freshNull = () => Object.create(null);

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
  // Runs a library promise to its end and reports to the host by callback: host code
  // must not call .then on a realm promise (its continuation would go to the host queue).
  function settle(start, done) {
    Promise.resolve().then(() => start()).then((value) => done(true, value), (error) => done(false, error));
  }
  return {
    promisify, callbackify, timersPromises, settle, queueMicrotask, nextTick, turnCounts,
    globals: out, lazyGlobals: lazy, wrapFn, backedOf, bufferView, bufferOf, typedOf, makeRequire, makeModule, makeError, freshObject, freshNull,
    getBuffer,
  };
})`;
