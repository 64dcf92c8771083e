// Escape corpus (issue 46): state put on the host's globalThis through a leak would survive
// into later runs of the same worker; through every path the other probes try, this
// module looks for a host global and counts what it found there.
"use strict";
const { spyOnIntrinsics } = require("../corpus-spy.cjs");
const exercise = require("../corpus-exercise.cjs");
module.exports = {
  expect: "same",
  async probe() {
    const spies = spyOnIntrinsics();
    try {
      await exercise();
    } finally {
      spies.restore();
    }
    const counts = [];
    for (const [, v] of spies.seen) {
      try {
        const g = (typeof v === "function" ? v : v.constructor).constructor("return globalThis")();
        g.__lockstepProbeRuns = (g.__lockstepProbeRuns || 0) + 1;
        counts.push(g.__lockstepProbeRuns);
      } catch (e) {
        counts.push(String(e && e.message));
      }
    }
    globalThis.__lockstepProbeRuns = (globalThis.__lockstepProbeRuns || 0) + 1;
    return [globalThis.__lockstepProbeRuns, counts.slice(0, 3)];
  },
};
