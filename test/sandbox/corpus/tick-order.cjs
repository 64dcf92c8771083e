// Escape corpus: nextTick before promise reactions, timers after.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    const out = [];
    return new Promise((resolve) => {
      setTimeout(() => {
        out.push("timeout");
        resolve(out);
      }, 0);
      setImmediate(() => out.push("immediate"));
      Promise.resolve().then(() => out.push("promise"));
      process.nextTick(() => out.push("tick"));
      queueMicrotask(() => out.push("microtask"));
    });
  },
};
