// Escape corpus: a promise chain that never ends.
"use strict";
module.exports = {
  expect: { stop: "an endless chain of promise reactions" },
  probe() {
    const loop = () => Promise.resolve().then(loop);
    loop();
    return new Promise(() => {});
  },
};
