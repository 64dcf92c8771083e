// Escape corpus: the host Function through path's functions.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    const p = require("path");
    return [p.join("a", "b"), p.join.constructor("return process.pid")(), p.posix.resolve.constructor("return process.pid")()];
  },
};
