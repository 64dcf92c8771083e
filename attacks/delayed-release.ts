import type { Attack } from "./types.js";
import { baseScenario, leaseMsOf, lockServersOf, timesLease } from "./lease.js";

export const delayedRelease: Attack = {
  name: "delayed-release",
  title: "The holder's release is held up in the network until its lease has lapsed and a waiter holds the lock",
  story:
    "The holder finishes its work and releases, but its messages to the lock service are delayed (a congested link, a retransmission storm): the release, sent at half the lease, lands at 1.3x. The lease lapses, a waiter takes the lock; then the old release arrives. A release that deletes the key without checking whose it is removes the waiter's lock, and a third client walks in beside the waiter; compare-and-delete finds another client's token and does nothing.",
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    // The waiter is served by the lease running out, not by the (late) release.
    s.challenge = { kind: "expiry-handover" };
    // c3 waits from before the late release lands (at about 1.3x the lease, while c2 holds).
    s.clients.push({ id: "c3", startMs: timesLease(lock, 1.1), opsMax: 1 });
    Object.assign(s.workload, { workMs: timesLease(lock, 0.5), waitMs: leaseMsOf(lock) * 5 });
    s.faults.push({
      // From its write (which goes to the resource, not the lock service): the release that follows is delayed.
      on: { process: "c1", f: "write", type: "invoke", nth: 1 },
      delayMs: 0,
      kind: "delay",
      links: lockServersOf(lock).map((server): [string, string] => ["c1", server]),
      extraMs: timesLease(lock, 0.8),
      durationMs: timesLease(lock, 1),
      note: "the holder's messages to the lock service are delayed by 0.8x its lease, from its write on: its release lands after its lease lapsed",
    });
    return { ok: true, scenario: s };
  },
};
