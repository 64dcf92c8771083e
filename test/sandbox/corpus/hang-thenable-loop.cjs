// Escape corpus (issue 46): a thenable that resolves to itself: V8 calls its `then`
// forever, with no Promise.prototype.then in sight.
"use strict";
module.exports = {
  expect: { stop: "did not return" },
  probe() {
    const t = {
      then(resolve) {
        resolve(t);
      },
    };
    return Promise.resolve(t);
  },
};
