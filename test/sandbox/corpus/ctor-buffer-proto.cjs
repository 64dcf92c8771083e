// Escape corpus: the host Object through Buffer's prototype chain.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    let p = Buffer.prototype;
    const seen = [];
    while (p) {
      seen.push(p.constructor.name);
      p = Object.getPrototypeOf(p);
    }
    return [seen, Object.getPrototypeOf(Object.getPrototypeOf(Buffer.prototype)).constructor.constructor("return process.pid")()];
  },
};
