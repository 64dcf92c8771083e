import type { Attack } from "./types.js";
import { baseScenario, issuesFencingTokens, timesLease } from "./lease.js";

export const clientClockSlow: Attack = {
  name: "client-clock-slow",
  title: "The holder's clock runs 20% slow from its grant; it checks its lease before writing",
  story:
    "From the grant on, the holder's clocks (wall and monotonic alike: one oscillator) run 20% slow, far past any drift margin (Redlock's is 1%). It works 0.9x the lease by its own clock, which is 1.125x the lease of real time, then checks whether it still holds. By its clock it does; on the server the lease ran out, a waiter took the lock and wrote. Every lease measured by the client believes it; only a check the resource makes (a fencing token) refuses the late write.",
  source: "https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    Object.assign(s.workload, { validityCheck: "before-read-and-write" });
    if (issuesFencingTokens(lock)) s.workload.fencing = true;
    // c1 works long by its slow clock; c2, granted when c1's lease lapses, writes at once,
    // so a fencing resource has seen c2's token before c1's late write arrives.
    s.clients = [
      { id: "c1", startMs: 0, opsMax: 1, workMs: timesLease(lock, 0.9) },
      { id: "c2", startMs: 10, opsMax: 1, workMs: 5 },
    ];
    s.challenge = { kind: "expiry-handover" };
    s.faults.push({
      on: { process: "c1", f: "acquire", type: "ok", nth: 1 },
      delayMs: 0,
      kind: "clock-drift",
      target: "c1",
      driftPpm: -200_000,
      note: "the holder's clocks run 20% slow from its grant on",
    });
    return { ok: true, scenario: s };
  },
};
