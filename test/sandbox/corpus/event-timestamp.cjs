// Escape corpus: Event's timeStamp (the host's performance clock).
"use strict";
module.exports = {
  expect: "same",
  probe() {
    return [new Event("x").timeStamp, new Event("y").timeStamp > 0];
  },
};
