// Escape corpus: the host Function through Event, EventTarget, AbortController.
"use strict";
/* global Event, AbortController -- the sandbox's globals, as Node's */
module.exports = {
  expect: "same",
  probe() {
    const c = new AbortController();
    let got = null;
    c.signal.addEventListener("abort", (e) => {
      got = e.type;
    });
    c.abort();
    return [got, c.signal.aborted, Event.constructor("return process.pid")(), c.signal.constructor.constructor("return process.pid")()];
  },
};
