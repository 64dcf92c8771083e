// Escape corpus: a flood of 1 ms intervals, which would otherwise run until the
// simulation's event bound and be reported as a scenario too long.
"use strict";
module.exports = {
  expect: { stop: "a timer flood" },
  probe() {
    for (let i = 0; i < 100; i++) setInterval(() => {}, 1);
    return new Promise(() => {});
  },
};
