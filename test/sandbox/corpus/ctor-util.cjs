// Escape corpus: the host Function through util.inspect and util.types.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    const u = require("util");
    return [
      u.inspect({ a: 1 }),
      u.inspect.constructor("return process.pid")(),
      u.types.isPromise.constructor("return process.pid")(),
      u.format("%s-%d", "a", 1),
    ];
  },
};
