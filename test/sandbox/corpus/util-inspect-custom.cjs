// Escape corpus (issue 46): util.inspect and util.format call an object's
// [util.inspect.custom](depth, options, inspect): the options and inspect are the host's.
"use strict";
const reach = require("../corpus-reach.cjs");
module.exports = {
  expect: "same",
  probe() {
    const util = require("util");
    const got = [];
    const o = {
      [Symbol.for("nodejs.util.inspect.custom")](depth, options, inspect) {
        got.push(options, inspect);
        return "custom";
      },
    };
    const printed = [util.inspect(o), util.format("%o %O %s", o, o, o)];
    return [
      printed,
      got
        .filter((v) => v !== null && (typeof v === "object" || typeof v === "function"))
        .map((v, i) => reach(`argument ${i}`, () => (typeof v === "function" ? v : v.constructor))),
    ];
  },
};
