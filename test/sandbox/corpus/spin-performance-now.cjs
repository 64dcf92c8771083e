// Escape corpus: a synchronous spin on performance.now().
"use strict";
/* global performance -- the sandbox's globals, as Node's */
module.exports = {
  expect: { stop: "a busy wait on the clock" },
  probe() {
    const t = performance.now();
    while (performance.now() < t + 5) {
      /* wait */
    }
    return "waited";
  },
};
