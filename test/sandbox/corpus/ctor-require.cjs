// Escape corpus: the host Function through require's constructor.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    return [require.constructor("return process.pid")(), require.resolve.constructor("return process.pid")()];
  },
};
