// Escape corpus: AbortSignal.timeout on the virtual clock.
"use strict";
/* global AbortSignal, performance -- the sandbox's globals, as Node's */
module.exports = {
  expect: "same",
  probe() {
    const t0 = performance.now();
    return new Promise((resolve) => {
      AbortSignal.timeout(30).addEventListener("abort", (e) => resolve([e.target.reason.name, performance.now() - t0]));
    });
  },
};
