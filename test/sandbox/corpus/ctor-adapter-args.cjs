// Escape corpus: the host Function through the values lockstep hands an adapter
// (create's argument, its addresses and options, acquire's options object).
"use strict";
const reach = require("../corpus-reach.cjs");
module.exports = {
  expect: "same",
  probe({ createArg, acquireOptions }) {
    return [
      reach("create argument", () => createArg.constructor.constructor),
      reach("addresses", () => createArg.addresses.constructor.constructor),
      reach("options", () => createArg.options.constructor.constructor),
      reach("acquire options", () => acquireOptions.constructor.constructor),
      reach("acquire options ttlMs", () => acquireOptions.ttlMs.constructor.constructor),
    ];
  },
};
