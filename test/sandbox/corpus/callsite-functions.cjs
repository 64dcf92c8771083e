// Escape corpus (issue 46): CallSites' getFunction and getThis hand out the functions
// and receivers of every frame on the stack, lockstep's own too.
"use strict";
const reach = require("../corpus-reach.cjs");
module.exports = {
  expect: "same",
  probe() {
    const prev = Error.prepareStackTrace;
    Error.prepareStackTrace = (_e, sites) => sites;
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = Infinity;
    const sites = new Error().stack;
    Error.stackTraceLimit = limit;
    Error.prepareStackTrace = prev;
    const out = [];
    for (const s of sites) {
      const f = s.getFunction();
      const t = s.getThis();
      if (typeof f === "function") out.push(reach(`function ${s.getFunctionName()}`, () => f));
      if (t !== null && typeof t === "object") out.push(reach(`this ${s.getTypeName()}`, () => t.constructor));
    }
    return [sites.length, out];
  },
};
