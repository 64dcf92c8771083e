import type { Attack } from "./types.js";
import { baseScenario, leaseMsOf, timesLease } from "./lease.js";

export const lateRelease: Attack = {
  name: "late-release",
  title: "The holder releases after its lease ran out and another client took the lock",
  story:
    "The holder's storage call hangs for 1.5x the lease; it waits out its storage timeout, gives up the critical section and releases. By then the lease has lapsed and a waiter holds the lock. A release that deletes the key without checking who owns it removes the waiter's lock, and a third client walks in beside the waiter.",
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    const leaseMs = leaseMsOf(lock);
    // The waiter is served by the lease running out, not by a release: that is the challenge.
    s.challenge = { kind: "expiry-handover" };
    s.clients.push({ id: "c3", startMs: timesLease(lock, 1.1), opsMax: 1 });
    Object.assign(s.workload, { workMs: timesLease(lock, 0.8), resourceTimeoutMs: timesLease(lock, 1.5), waitMs: leaseMs * 5 });
    s.faults.push({
      on: { process: "c1", f: "read", type: "invoke", nth: 1 },
      delayMs: 0,
      kind: "cut",
      links: [["storage", "c1"]],
      durationMs: timesLease(lock, 1.5),
      note: "the storage's replies to the holder are cut for 1.5x its lease, just after it sent its read",
    });
    return { ok: true, scenario: s };
  },
};
