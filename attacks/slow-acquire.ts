import type { Attack } from "./types.js";
import { baseScenario, leaseMsOf, lockServersOf, profileOfLock } from "./lease.js";

export const slowAcquire: Attack = {
  name: "slow-acquire",
  title: "The holder's link to the lock service is slow: the grant arrives with its lease mostly spent",
  story:
    "A standing latency of 0.6x the lease each way sits on the holder's links to the lock's nodes. Its SET lands at 0.6x and its reply arrives at 1.2x the lease, after the key's lease began: the lock is already expired when the holder hears it got it. A client that measures validity from before the request refuses it; one that counts the full TTL from the reply, or never checks, works past the key's expiry while a waiter takes the lock.",
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  compile(lock) {
    if (profileOfLock(lock).family === "raft")
      return { ok: false, refusal: `not compiled for ${lock.design}: its client links are the Raft cluster's, no Redis nodes` };
    const s = baseScenario(lock, this.name, this.title, this.story);
    const oneWayUs = Math.round(leaseMsOf(lock) * 0.6 * 1000);
    // The waiter comes once the holder's SET has landed, even behind a connection
    // handshake (a real client's first round trip), so the holder is the one granted.
    s.clients[1]!.startMs = Math.round(leaseMsOf(lock) * 2);
    s.workload.workMs = Math.round(leaseMsOf(lock) * 0.5);
    s.network = {
      links: [
        {
          from: ["c1"],
          to: lockServersOf(lock),
          bothWays: true,
          latencyUsBase: oneWayUs,
          latencyUsJitter: 0,
          note: "0.6x the lease each way between the holder and the lock's nodes",
        },
      ],
    };
    return { ok: true, scenario: s };
  },
};
