// Escape corpus (issue 46): node-redis's eval(script, { keys }) with a keys object whose
// own `map` keeps what it is handed, and Array.prototype.map replaced: lockstep's
// argument builder must not hand either a host function.
"use strict";
const reach = require("../corpus-reach.cjs");
module.exports = {
  expect: "same",
  async probe() {
    const got = [];
    const n = require("redis").createClient();
    await n.connect();
    const keys = ["k"];
    keys.map = function (fn) {
      got.push(fn);
      return ["k"];
    };
    const realMap = Array.prototype.map;
    Array.prototype.map = function (fn, self) {
      got.push(fn);
      return realMap.call(this, fn, self);
    };
    let reply;
    try {
      reply = await n.eval("return KEYS[1]", { keys, arguments: ["a"] });
    } catch (e) {
      reply = String(e && e.message);
    } finally {
      Array.prototype.map = realMap;
    }
    return { reply, reached: got.map((f, i) => reach(`callback ${i}`, () => f)) };
  },
};
