import type { Attack } from "./types.js";
import { baseScenario, holderCutOff, profileOfLock, timesLease } from "./lease.js";

export const longHoldRenewal: Attack = {
  name: "long-hold-renewal",
  title: "A hold of 2.5x the lease kept by renewals, until the holder is cut off from the lock service mid-hold",
  story:
    "The holder works 2.5x the lease, kept alive by renewal: its session's pings or lease keepalives, node-redlock's using(), or (elsewhere) a watchdog that extends the lease every third of it. The first renewals go through; 1.1x the lease into the hold its links to every lock server are cut for 2x the lease, and the lease or session runs out on the servers while a waiter takes the lock. Before writing the holder asks its lock whether it still holds: a lock that noticed the lost renewal (a refused or unanswered extend, a SUSPENDED connection) says no; one that took a renewal for granted, or trusts its lock until its session is declared LOST, writes beside the waiter.",
  source: "https://curator.apache.org/docs/errors",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    Object.assign(s.workload, {
      workMs: timesLease(lock, 2.5),
      validityCheck: "before-read-and-write",
      ...(profileOfLock(lock).renewsItself ? {} : { renewEveryMs: timesLease(lock, 1 / 3) }),
    });
    // The waiter comes once the hold is under way: a library that retries a fixed number
    // of times (node-redlock) is still trying when the lease runs out.
    s.clients[1]!.startMs = timesLease(lock, 1.2);
    s.challenge = { kind: "expiry-handover" };
    s.faults.push(
      holderCutOff(
        lock,
        timesLease(lock, 1.1),
        timesLease(lock, 2),
        "the holder's links to the lock servers are cut both ways for 2x its lease, 1.1x the lease into its hold",
      ),
    );
    return { ok: true, scenario: s };
  },
};
