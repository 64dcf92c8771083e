// Escape corpus: the host Function through TextEncoder's output.
"use strict";
/* global TextEncoder, TextDecoder -- the sandbox's globals, as Node's */
module.exports = {
  expect: "same",
  probe() {
    const b = new TextEncoder().encode("hé");
    return [Array.from(b), b.constructor.constructor("return process.pid")(), new TextDecoder().decode(b)];
  },
};
