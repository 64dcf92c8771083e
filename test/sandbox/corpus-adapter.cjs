// The escape corpus's adapter: its first acquire runs the probe module named by
// options.probe (test/sandbox/corpus/*.cjs) inside the sandbox, and every acquire
// rejects with the probe's result in its reason, so the result is in the history.
// The probe gets what lockstep handed the adapter: create's argument and acquire's.
"use strict";
module.exports = {
  create(createArg) {
    const probe = require(createArg.options.probe);
    let result;
    return {
      async acquire(lock, acquireOptions) {
        if (!result) {
          result = Promise.resolve()
            .then(() => probe.probe({ createArg, lock, acquireOptions }))
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
