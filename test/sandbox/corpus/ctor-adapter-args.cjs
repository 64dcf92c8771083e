// Escape corpus: the host Function through the values lockstep hands an adapter
// (create's argument, its addresses and options, acquire's options object).
"use strict";
module.exports = {
  expect: "same",
  probe({ createArg, acquireOptions }) {
    const probe = "return [process.pid, Date.now(), typeof process.binding]";
    const reach = (name, f) => {
      try {
        return [name, f().constructor(probe)()];
      } catch (e) {
        return [name, String(e && e.message)];
      }
    };
    return [
      reach("create argument", () => createArg.constructor.constructor),
      reach("addresses", () => createArg.addresses.constructor.constructor),
      reach("options", () => createArg.options.constructor.constructor),
      reach("acquire options", () => acquireOptions.constructor.constructor),
      reach("acquire options ttlMs", () => acquireOptions.ttlMs.constructor.constructor),
    ];
  },
};
