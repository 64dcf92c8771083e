// Escape corpus: the host Function through a timer function's constructor.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    return setTimeout.constructor("return [process.pid, Date.now(), typeof process.binding]")();
  },
};
