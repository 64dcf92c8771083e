/**
 * JavaScript evaluated inside every sandbox realm before library code, so that what it
 * builds (the virtual Date, promisify, timers/promises) is made of the realm's own
 * intrinsics: a promise created by host code would run its continuations on the
 * host's microtask queue, outside the simulated process's turn.
 *
 * `host` is the bridge object the realm passes in; every clock and timer goes through it.
 */
export const PRELUDE_SOURCE = String.raw`(function (host) {
  "use strict";
  const RealDate = Date;
  function VDate(...args) {
    if (!new.target) return new RealDate(host.wallMs()).toString();
    return Reflect.construct(RealDate, args.length === 0 ? [host.wallMs()] : args, new.target);
  }
  Object.setPrototypeOf(VDate, RealDate);
  VDate.prototype = RealDate.prototype;
  Object.defineProperty(RealDate.prototype, "constructor", { value: VDate, writable: true, configurable: true });
  VDate.now = function now() { return host.wallMs(); };
  VDate.parse = RealDate.parse;
  VDate.UTC = RealDate.UTC;
  globalThis.Date = VDate;

  Math.random = function random() { return host.random(); };

  // Handlers are wrapped in realm closures: V8 queues a reaction on the queue of the
  // handler's own context, so a host function passed straight to .then would run on
  // the host's queue, after the turn.
  const queueMicrotask = (fn) => { Promise.resolve().then(() => fn()); };
  globalThis.queueMicrotask = queueMicrotask;

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
  // globalThis is the realm's: its setTimeout/setImmediate are the virtual timers
  // realm.ts installs, so these resolve on the simulated process's clock.
  const timersPromises = {
    setTimeout: (ms, value) => new Promise((resolve) => globalThis.setTimeout(() => resolve(value), ms)),
    setImmediate: (value) => new Promise((resolve) => globalThis.setImmediate(() => resolve(value))),
  };
  // Runs a library promise to its end and reports to the host by callback: host code
  // must not call .then on a realm promise (its continuation would go to the host queue).
  function settle(start, done) {
    Promise.resolve().then(() => start()).then((value) => done(true, value), (error) => done(false, error));
  }
  return { promisify, callbackify, timersPromises, settle, queueMicrotask, RealDate };
})`;
