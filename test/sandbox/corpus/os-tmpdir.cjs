// Escape corpus: os.tmpdir (host state).
"use strict";
module.exports = {
  expect: { stop: 'require("os").tmpdir()' },
  probe() {
    return require("os").tmpdir();
  },
};
