// The escape corpus's adapter: its first acquire runs the probe module named by
// options.probe (test/sandbox/corpus/*.cjs) inside the sandbox, and every acquire
// rejects with the probe's result in its reason, so the result is in the history.
"use strict";
module.exports = {
  create({ options }) {
    const probe = require(options.probe);
    let result;
    return {
      async acquire() {
        if (!result) {
          result = Promise.resolve()
            .then(() => probe.probe())
            .then(
              (v) => ({ value: v }),
              (e) => ({ threw: String(e && e.message) }),
            );
        }
        throw new Error("probe " + JSON.stringify(await result));
      },
      async release() {
        return true;
      },
    };
  },
};
