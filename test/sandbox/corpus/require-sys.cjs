// Escape corpus: an unprovided builtin, sys.
"use strict";
module.exports = {
  expect: { stop: 'require("sys")' },
  probe() {
    return typeof require("sys").inspect;
  },
};
