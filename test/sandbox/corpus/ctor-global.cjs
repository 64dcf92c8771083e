// Escape corpus: the host Object through the context's global.
"use strict";
/* global global -- the sandbox's globals, as Node's */
module.exports = {
  expect: "same",
  probe() {
    return [globalThis.constructor.constructor("return process.pid")(), global.constructor.name, typeof globalThis.constructor];
  },
};
