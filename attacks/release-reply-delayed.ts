import type { Attack } from "./types.js";
import { baseScenario, leaseMsOf, lockServersOf, timesLease } from "./lease.js";

export const releaseReplyDelayed: Attack = {
  name: "release-reply-delayed",
  title: "The lock service's replies to the holder are held up while it releases, until its lease has lapsed",
  story:
    "The holder finishes its work and releases at half the lease; its requests reach the lock service at once, but the replies back are delayed by 0.8x the lease (a congested return path, a stalled client I/O thread). A release that reads the key (GET), compares, and then deletes (DEL) gets its read's answer after the lease lapsed and a waiter took the lock: its DEL removes the waiter's key, and a third client walks in beside the waiter. A release that compares and deletes in one script ran at once, on its own key.",
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    // The waiter is served by the lease running out, not by a release.
    s.challenge = { kind: "expiry-handover" };
    // c3 waits from before the held-up reply arrives (at about 1.3x the lease, while c2 holds).
    s.clients.push({ id: "c3", startMs: timesLease(lock, 1.1), opsMax: 1 });
    Object.assign(s.workload, { workMs: timesLease(lock, 0.5), waitMs: leaseMsOf(lock) * 5 });
    s.faults.push({
      // From its write (which goes to the resource, not the lock service): the release that follows gets its replies late.
      on: { process: "c1", f: "write", type: "invoke", nth: 1 },
      delayMs: 0,
      kind: "delay",
      links: lockServersOf(lock).map((server): [string, string] => [server, "c1"]),
      extraMs: timesLease(lock, 0.8),
      durationMs: timesLease(lock, 1),
      note: "the lock service's replies to the holder are delayed by 0.8x its lease, from its write on: its release's read answers after its lease lapsed",
    });
    return { ok: true, scenario: s };
  },
};
