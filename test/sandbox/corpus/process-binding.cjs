// Escape corpus: process.binding.
"use strict";
module.exports = {
  expect: { stop: 'process.binding("fs")' },
  probe() {
    return process.binding("fs");
  },
};
