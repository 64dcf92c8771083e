// Escape corpus: a setImmediate loop.
"use strict";
module.exports = {
  expect: { stop: "an endless setImmediate chain" },
  probe() {
    const loop = () => setImmediate(loop);
    loop();
    return new Promise(() => {});
  },
};
