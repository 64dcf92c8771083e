// Escape corpus: Math.random, crypto.randomUUID, randomBytes (seeded).
"use strict";
/* global crypto -- the sandbox's globals, as Node's */
module.exports = {
  expect: "same",
  probe() {
    const c = require("crypto");
    return [Math.random(), crypto.randomUUID(), c.randomBytes(8).toString("hex"), c.randomInt(1000)];
  },
};
