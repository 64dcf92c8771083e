import type { Attack } from "./types.js";
import { baseScenario, timesLease } from "./lease.js";

export const waiterClockJump: Attack = {
  name: "waiter-clock-jump",
  title: "A waiter's wall clock jumps forward past the holder's lease while the holder works",
  story:
    "The holder works 0.6x the lease, well inside it. A tenth of a lease into the hold, the waiter's wall clock steps forward by 1.5x the lease (NTP correcting a slow clock, a VM resumed). A lock whose expiry the server keeps (a TTL, a session) is not moved by it: the waiter waits for the release. One that judges another client's lock expired by comparing a timestamp stored in the key with its own clock (the SETNX/GETSET pattern of Redis's old SETNX page) finds the holder's lock stale and takes it beside the holder.",
  source: "https://redis.io/docs/latest/commands/setnx/",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    s.workload.workMs = timesLease(lock, 0.6);
    s.challenge = { kind: "waiter-served" };
    s.faults.push({
      on: { process: "c1", f: "acquire", type: "ok", nth: 1 },
      delayMs: timesLease(lock, 0.1),
      kind: "clock-jump",
      target: "c2",
      deltaMs: timesLease(lock, 1.5),
      note: "the waiter's wall clock steps forward by 1.5x the lease, a tenth of a lease into the hold",
    });
    return { ok: true, scenario: s };
  },
};
