// Escape corpus (issue 46): `for (;;) await null` calls nothing a budget could count.
"use strict";
module.exports = {
  expect: { stop: "did not return" },
  async probe() {
    for (;;) await null;
  },
};
