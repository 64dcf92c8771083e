// Escape corpus: performance marks (host timing state).
"use strict";
module.exports = {
  expect: { stop: "performance.mark()" },
  probe() {
    performance.mark("a"); return "marked";
  },
};
