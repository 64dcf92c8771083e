import type { Attack } from "./types.js";
import { baseScenario, timesLease } from "./lease.js";

export const waiterDeadline: Attack = {
  name: "waiter-deadline",
  title: "A waiter reaches its deadline while the holder is still working",
  story:
    "The holder works for 0.8x its lease, well inside it; a waiter starts just after and may wait only 0.3x the lease. No fault at all: the waiter must give up at its deadline. A client that proceeds when its wait runs out (or treats a timed-out try as a grant) works beside the holder.",
  source: "https://github.com/mike-marcacci/node-redlock/issues/39",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    Object.assign(s.workload, { workMs: timesLease(lock, 0.8), waitMs: timesLease(lock, 0.3) });
    // Tested when the waiter's wait ran out with the lock taken; a grant beside the holder is unsafe.
    s.challenge = { kind: "waiter-waited", waitedMsMin: timesLease(lock, 0.25) };
    return { ok: true, scenario: s };
  },
};
