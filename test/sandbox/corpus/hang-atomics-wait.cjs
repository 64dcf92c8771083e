// Escape corpus (issue 46): Atomics.wait on memory no other thread can touch blocks the
// host thread for ever (and its timeout is the host's clock).
"use strict";
module.exports = {
  expect: { stop: "Atomics.wait" },
  probe() {
    return Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  },
};
