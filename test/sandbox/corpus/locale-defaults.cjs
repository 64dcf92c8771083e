// Escape corpus: number, string and list locale defaults.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    return [
      (1234567.891).toLocaleString(),
      "a".localeCompare("B"),
      "i".toLocaleUpperCase(),
      new Intl.NumberFormat().resolvedOptions().locale,
      [1.5, 2].toLocaleString(),
    ];
  },
};
