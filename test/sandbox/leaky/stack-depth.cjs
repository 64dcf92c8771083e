// A library that reads its own stack: how deep it can recurse before V8 throws
// RangeError depends on the host frames below it, which the sandbox cannot make virtual.
// --check-determinism must catch it (its rerun starts deeper on the host's stack).
"use strict";
module.exports = {
  probe() {
    let depth = 0;
    const down = () => {
      depth++;
      down();
    };
    try {
      down();
    } catch {
      // the stack's end
    }
    return depth;
  },
};
