import type { Attack } from "./types.js";
import { baseScenario, timesLease } from "./lease.js";

export const clientClockJump: Attack = {
  name: "client-clock-jump",
  title: "The holder's wall clock jumps back just after the grant; it checks its lease before writing",
  story:
    "Just after the grant, the holder's wall clock steps back by the lease (NTP correcting a fast clock, a VM restored). The holder works for 1.2x the lease and checks, before its write, whether it still holds. A lock that measures its lease with the wall clock (Date.now) believes it has time left and writes after the lease ran out on the server, beside a waiter that took the lock; one that uses a monotonic clock knows its lease is gone.",
  source: "https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    Object.assign(s.workload, { workMs: timesLease(lock, 1.2), validityCheck: "before-read-and-write" });
    s.challenge = { kind: "expiry-handover" };
    s.faults.push({
      on: { process: "c1", f: "acquire", type: "ok", nth: 1 },
      delayMs: 0,
      kind: "clock-jump",
      target: "c1",
      deltaMs: -timesLease(lock, 1),
      note: "the holder's wall clock steps back by its lease just after the grant",
    });
    return { ok: true, scenario: s };
  },
};
