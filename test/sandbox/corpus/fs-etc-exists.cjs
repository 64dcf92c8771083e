// Escape corpus: probing host files.
"use strict";
module.exports = {
  expect: { stop: 'require("fs").existsSync("/etc/hostname")' },
  probe() {
    return require("fs").existsSync("/etc/hostname");
  },
};
