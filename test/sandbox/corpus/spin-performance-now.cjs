// Escape corpus: a synchronous spin on performance.now().
"use strict";
module.exports = {
  expect: { stop: "a busy wait on the clock" },
  probe() {
    const t = performance.now(); while (performance.now() < t + 5) { /* wait */ } return "waited";
  },
};
