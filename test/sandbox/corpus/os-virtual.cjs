// Escape corpus: os: hostname, cpus, memory, uptime, load.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    const os = require("os");
    return [os.hostname(), os.cpus().length, os.totalmem(), os.freemem(), os.uptime(), os.loadavg(), os.platform()];
  },
};
