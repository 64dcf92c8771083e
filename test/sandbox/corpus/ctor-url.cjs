// Escape corpus: the host Function through URL and URLSearchParams.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    const u = new URL("http://a:1/b?c=d");
    return [
      u.host,
      u.searchParams.get("c"),
      [...u.searchParams],
      u.searchParams.get.constructor("return process.pid")(),
      URL.constructor("return process.pid")(),
    ];
  },
};
