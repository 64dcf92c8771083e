// Escape corpus: reading /proc/uptime.
"use strict";
module.exports = {
  expect: { stop: 'require("fs").readFileSync("/proc/uptime")' },
  probe() {
    return require("fs").readFileSync("/proc/uptime", "utf8");
  },
};
