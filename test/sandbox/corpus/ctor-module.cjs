// Escape corpus: the host Function through module and exports.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    return [module.constructor.constructor("return process.pid")(), exports.constructor.constructor("return process.pid")()];
  },
};
