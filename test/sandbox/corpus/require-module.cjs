// Escape corpus: an unprovided builtin, module.
"use strict";
module.exports = {
  expect: { stop: 'require("module")' },
  probe() {
    return typeof require("module").createRequire;
  },
};
