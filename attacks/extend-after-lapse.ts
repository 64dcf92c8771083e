import type { Attack } from "./types.js";
import { baseScenario, timesLease } from "./lease.js";

export const extendAfterLapse: Attack = {
  name: "extend-after-lapse",
  title: "The holder extends its lease after it lapsed and another client took the lock",
  story:
    "The holder reads, then pauses for 1.5x its lease before extending. Its key expires and a waiter takes the lock. An extend that checks the key still holds the holder's value fails and the holder stops; one that PEXPIREs whatever key is there succeeds on the waiter's lock, and the holder writes beside the waiter.",
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    s.workload.extendTtlMs = timesLease(lock, 1);
    // The waiter still holds when the holder wakes and extends: an unchecked PEXPIRE lands on its key.
    s.clients[1]!.workMs = timesLease(lock, 1);
    s.faults.push({
      on: { process: "c1", f: "read", type: "ok", nth: 1 },
      delayMs: 0,
      kind: "pause",
      target: "c1",
      durationMs: timesLease(lock, 1.5),
      note: "the holder pauses for 1.5x its lease after its read, before it extends",
    });
    return { ok: true, scenario: s };
  },
};
