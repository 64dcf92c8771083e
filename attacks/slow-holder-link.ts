import type { Attack } from "./types.js";
import { baseScenario, leaseMsOf, lockServersOf, requestTimeoutMsOf } from "./lease.js";

export const slowHolderLink: Attack = {
  name: "slow-holder-link",
  title: "The holder's links to the lock service are slow for the whole run; the waiter's are not",
  story:
    "The holder sits behind a slow link: every message between it and the lock service takes a fifth of the lease longer each way (less where the client's request timeout is shorter), all run (a congested path, a far region); the waiter's links are fast. The holder's lease starts when its SET reaches the server, one trip before the reply reaches it. It works a lease less half a trip and checks before writing. A lock that counts its lease from the request's send believes less than the server grants and refrains; one that counts from the reply believes a trip longer than the server keeps the key, writes after the waiter, on its fast link, has been granted.",
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    const leaseMs = leaseMsOf(lock);
    // Slow, but inside the client's request timeout (a reply later than that is a lost one).
    const latencyMs = Math.floor(Math.min(0.2 * leaseMs, 0.4 * requestTimeoutMsOf(lock)));
    // The holder checks after a lease minus half a trip from its reply: past the server's
    // expiry by half a trip, inside a lease counted from the reply.
    Object.assign(s.workload, { validityCheck: "before-read-and-write" });
    // The waiter asks once the holder has its grant (a real client connects first: two
    // trips, then the SET), and writes at once when granted.
    s.clients = [
      { id: "c1", startMs: 0, opsMax: 1, workMs: leaseMs - Math.floor(latencyMs / 2) },
      { id: "c2", startMs: 5 * latencyMs + 20, opsMax: 1, workMs: 5 },
    ];
    s.durationMs = leaseMs * 8;
    s.challenge = { kind: "expiry-handover" };
    s.network = {
      links: [
        {
          from: ["c1"],
          to: lockServersOf(lock),
          bothWays: true,
          latencyUsBase: latencyMs * 1000,
          note: `every message between the holder and the lock service takes ${latencyMs} ms more, each way, all run`,
        },
      ],
    };
    return { ok: true, scenario: s };
  },
};
