// Escape corpus: writing a file.
"use strict";
module.exports = {
  expect: { stop: 'require("fs").writeFileSync' },
  probe() {
    require("fs").writeFileSync("/tmp/lockstep-corpus", "x");
    return "wrote";
  },
};
