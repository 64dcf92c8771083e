// Escape corpus: a synchronous spin on Date.now().
"use strict";
module.exports = {
  expect: { stop: "a busy wait on the clock" },
  probe() {
    const t = Date.now();
    while (Date.now() < t + 5) {
      /* wait */
    }
    return "waited";
  },
};
