// Escape corpus: performance marks (host timing state).
"use strict";
/* global performance -- the sandbox's globals, as Node's */
module.exports = {
  expect: { stop: "performance.mark()" },
  probe() {
    performance.mark("a");
    return "marked";
  },
};
