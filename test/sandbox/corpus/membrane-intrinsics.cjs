// Escape corpus (issue 46): library code that replaces its realm's intrinsics
// (Array.prototype.map, Function.prototype.apply, Promise.prototype.then...) sees every
// value host code hands them; none may be the host's.
"use strict";
const { spyOnIntrinsics, reachAll } = require("../corpus-spy.cjs");
const exercise = require("../corpus-exercise.cjs");
module.exports = {
  expect: "same",
  async probe() {
    const spies = spyOnIntrinsics();
    let result;
    try {
      result = await exercise();
    } finally {
      spies.restore();
    }
    return { hostValues: reachAll(spies.seen), result };
  },
};
