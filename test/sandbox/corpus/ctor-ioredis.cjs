// Escape corpus: the host Function through the simulated ioredis module, a client, its
// methods, its prototype chain, a listener's `this`, a batch and the client's fields.
"use strict";
const reach = require("../corpus-reach.cjs");
module.exports = {
  expect: "same",
  probe() {
    const Redis = require("ioredis");
    const c = new Redis();
    let self = null;
    // The probe is what `this` a listener gets.
    c.on("probe", function () {
      // eslint-disable-next-line @typescript-eslint/no-this-alias
      self = this;
    });
    c.emit("probe");
    const reached = [
      reach("module", () => Redis.constructor),
      reach("method", () => c.get.constructor),
      reach("instance", () => c.constructor.constructor),
      reach("prototype chain", () => Object.getPrototypeOf(Object.getPrototypeOf(c)).constructor.constructor),
      reach("listener this", () => self.constructor.constructor),
      reach("batch", () => c.multi().exec.constructor),
      reach("options", () => c.options.constructor.constructor),
      ...Object.getOwnPropertyNames(c).map((k) => reach(`field ${k}`, () => c[k].constructor.constructor)),
    ];
    c.disconnect();
    return reached;
  },
};
