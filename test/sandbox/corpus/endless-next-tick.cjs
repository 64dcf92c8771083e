// Escape corpus: a nextTick chain that never ends.
"use strict";
module.exports = {
  expect: { stop: "an endless chain of promise reactions" },
  probe() {
    const loop = () => process.nextTick(loop);
    loop();
    return new Promise(() => {});
  },
};
