// Escape corpus (issue 46): an unhandled rejection whose promise has a null prototype (or
// whose reason is a Proxy that throws on every trap): reported, never rethrown on the host.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    const p = Promise.reject(new Error("nobody handles this"));
    Object.setPrototypeOf(p, null);
    const trap = () => {
      throw new Error("trapped");
    };
    const q = Promise.reject(new Proxy({}, { get: trap, getPrototypeOf: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap }));
    Object.setPrototypeOf(q, null);
    return "left two rejections unhandled";
  },
};
