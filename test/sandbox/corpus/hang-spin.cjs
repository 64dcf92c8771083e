// Escape corpus (issue 46): a plain spin never returns; a watchdog stops the run, naming the call.
"use strict";
module.exports = {
  expect: { stop: "did not return" },
  probe() {
    for (;;) {
      // spin
    }
  },
};
