// Ordering probes: the same code runs in real Node (a child process) and in the sandbox
// (ordering.test.ts), and the orders it logs must agree. Each probe starts inside a
// timer callback, where Node's order is fixed (from the main module, setTimeout(0)
// against setImmediate depends on the host's speed).
"use strict";
/* global clearImmediate -- a Node global */
const PROBES = {
  "nextTick before promise reactions"(log) {
    Promise.resolve().then(() => log("promise"));
    process.nextTick(() => log("tick"));
    log("sync");
  },
  "queueMicrotask is a promise reaction"(log) {
    queueMicrotask(() => log("microtask"));
    Promise.resolve().then(() => log("then"));
    process.nextTick(() => log("tick"));
  },
  "a tick queued by a tick runs before promise reactions"(log) {
    Promise.resolve().then(() => log("promise"));
    process.nextTick(() => {
      log("tick1");
      process.nextTick(() => log("tick2"));
    });
  },
  "a tick queued by a reaction waits for the reactions queue"(log) {
    Promise.resolve()
      .then(() => {
        log("then1");
        process.nextTick(() => log("tick-from-then"));
        Promise.resolve().then(() => log("inner-then"));
      })
      .then(() => log("then2"));
  },
  "a reaction queued by a tick runs after the other ticks"(log) {
    process.nextTick(() => {
      log("tick1");
      Promise.resolve().then(() => log("then-from-tick"));
    });
    process.nextTick(() => log("tick2"));
  },
  "setImmediate before setTimeout(0) inside a timer"(log) {
    setTimeout(() => log("timeout0"), 0);
    setImmediate(() => log("immediate"));
    process.nextTick(() => log("tick"));
  },
  "ticks and reactions run between immediates"(log) {
    setImmediate(() => {
      log("immediate1");
      process.nextTick(() => log("tick1"));
      Promise.resolve().then(() => log("then1"));
    });
    setImmediate(() => log("immediate2"));
  },
  "timers fire in delay then creation order"(log) {
    setTimeout(() => log("t2"), 2);
    setTimeout(() => log("t1a"), 1);
    setTimeout(() => log("t0"), 0);
    setTimeout(() => log("t1b"), 1);
  },
  "async functions and awaits against ticks"(log) {
    (async () => {
      log("async-start");
      await null;
      log("after-await1");
      await null;
      log("after-await2");
    })();
    process.nextTick(() => log("tick"));
    Promise.resolve().then(() => log("then"));
    log("sync-end");
  },
  "nextTick passes its arguments"(log) {
    process.nextTick((a, b) => log(`tick:${a}:${b}`), "x", 2);
    setImmediate((a) => log(`immediate:${a}`), "y");
    setTimeout((a) => log(`timeout:${a}`), 1, "z");
  },
  "clearImmediate and clearTimeout cancel"(log) {
    const i = setImmediate(() => log("cleared-immediate"));
    const t = setTimeout(() => log("cleared-timeout"), 1);
    setImmediate(() => log("kept-immediate"));
    clearImmediate(i);
    clearTimeout(t);
  },
  "an interval repeats until cleared"(log) {
    let n = 0;
    const h = setInterval(() => {
      log(`interval${++n}`);
      if (n === 3) clearInterval(h);
    }, 2);
  },
};

module.exports = {
  names: Object.keys(PROBES),
  run(report) {
    const names = Object.keys(PROBES);
    const out = {};
    const next = (i) => {
      if (i === names.length) return report(out);
      // Each probe starts in a timer callback and is read 30 ms later, when it is quiet.
      setTimeout(() => {
        const order = [];
        PROBES[names[i]]((x) => order.push(x));
        setTimeout(() => {
          out[names[i]] = order;
          next(i + 1);
        }, 30);
      }, 1);
    };
    next(0);
  },
};
