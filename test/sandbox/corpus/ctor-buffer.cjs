// Escape corpus: the host Function through Buffer and a Buffer's constructor.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    return [Buffer.constructor("return process.pid")(), Buffer.from("x").constructor.constructor("return process.pid")()];
  },
};
