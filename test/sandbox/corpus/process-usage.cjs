// Escape corpus: process.uptime, memoryUsage, cpuUsage, hrtime.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    return [process.uptime(), process.memoryUsage(), process.memoryUsage.rss(), process.cpuUsage(), String(process.hrtime.bigint()), process.hrtime()];
  },
};
