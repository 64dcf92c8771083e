// Escape corpus: process.env beyond a fixed set.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    return [Object.keys(process.env).sort(), process.env.HOME, process.env.PATH, process.env.TZ];
  },
};
