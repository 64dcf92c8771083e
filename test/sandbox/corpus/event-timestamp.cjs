// Escape corpus: Event's timeStamp (the host's performance clock).
"use strict";
/* global Event -- the sandbox's globals, as Node's */
module.exports = {
  expect: "same",
  probe() {
    return [new Event("x").timeStamp, new Event("y").timeStamp > 0];
  },
};
