// Escape corpus (issue 46): a symlink beside the adapter that points at /proc/uptime;
// the check must look at where a path leads, not at its name.
"use strict";
module.exports = {
  expect: { stop: "/proc/uptime" },
  probe() {
    return require("fs").readFileSync(__dirname + "/links/uptime", "utf8");
  },
};
