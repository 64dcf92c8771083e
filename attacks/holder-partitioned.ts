import type { Attack } from "./types.js";
import { baseScenario, holderCutOff, timesLease } from "./lease.js";

export const holderPartitioned: Attack = {
  name: "holder-partitioned",
  title: "The holder is cut off from the lock service past its lease, and checks its lease before writing",
  story:
    "Just after the grant, the holder's links to every lock server are cut for 1.5x the lease (a partition, a dead switch port); its link to the protected resource stays up. The lease or session runs out on the servers and a waiter takes the lock. The holder works for 1.5x the lease and asks its lock, before writing, whether it still holds: a lock that measures its lease from before its request (or hears its session is gone) says no and the stale write is never sent; one that trusts the grant forever writes beside the waiter.",
  source: "https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    Object.assign(s.workload, { workMs: timesLease(lock, 1.5), validityCheck: "before-read-and-write" });
    s.challenge = { kind: "expiry-handover" };
    s.faults.push(
      holderCutOff(lock, 0, timesLease(lock, 1.5), "the holder's links to the lock servers are cut both ways for 1.5x its lease, just after the grant"),
    );
    return { ok: true, scenario: s };
  },
};
