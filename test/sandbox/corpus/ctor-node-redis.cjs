// Escape corpus: the host Function through the simulated node-redis module, a client,
// its methods, a multi chain, a listener's `this` and the client's fields.
"use strict";
const reach = require("../corpus-reach.cjs");
module.exports = {
  expect: "same",
  probe() {
    const redis = require("redis");
    const c = redis.createClient();
    let self = null;
    // The probe is what `this` a listener gets.
    c.on("probe", function () {
      // eslint-disable-next-line @typescript-eslint/no-this-alias
      self = this;
    });
    c.emit("probe");
    return [
      reach("createClient", () => redis.createClient.constructor),
      reach("class", () => redis.RedisClient.constructor),
      reach("method", () => c.set.constructor),
      reach("instance", () => c.constructor.constructor),
      reach("prototype chain", () => Object.getPrototypeOf(Object.getPrototypeOf(c)).constructor.constructor),
      reach("listener this", () => self.constructor.constructor),
      reach("multi", () => c.multi().exec.constructor),
      reach("options", () => c.options.constructor.constructor),
      ...Object.getOwnPropertyNames(c).map((k) => reach(`field ${k}`, () => c[k].constructor.constructor)),
    ];
  },
};
