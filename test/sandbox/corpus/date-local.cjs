// Escape corpus: Date's local-time methods (the host zone).
"use strict";
module.exports = {
  expect: "same",
  probe() {
    const d = new Date(86400000 * 200 + 3600000 * 5);
    return [
      d.toString(),
      d.getHours(),
      d.getTimezoneOffset(),
      d.toLocaleString(),
      d.toLocaleDateString(),
      new Date(2020, 0, 1).getTime(),
      Date.parse("2020-01-01T00:00"),
    ];
  },
};
