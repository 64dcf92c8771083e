// Escape corpus: the host Function through an error a builtin throws.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    try {
      Buffer.from(Symbol("x"));
    } catch (e) {
      return [e.name, e.constructor.constructor("return process.pid")()];
    }
    return "no error";
  },
};
