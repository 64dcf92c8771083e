import type { Attack } from "./types.js";
import { baseScenario, lockServersOf, timesLease } from "./lease.js";

export const lossyNetwork: Attack = {
  name: "lossy-network",
  title: "A lossy network between the clients and the lock service: a quarter of the messages are lost",
  story:
    "For the whole run, a quarter of the messages between the clients and the lock service are lost each way (a flapping link, an overloaded NIC). Requests and replies vanish; clients time out and retry while another client holds the lock. A lock that reads a timeout or a refused retry as success, or retries a release blindly, lets two clients in; a correct one only waits longer.",
  source: "https://aphyr.com/posts/283-jepsen-redis",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    // Both clients contend throughout: c2 asks while c1 works, and both retry through the loss.
    s.clients = [
      { id: "c1", startMs: 0, opsMax: 2 },
      { id: "c2", startMs: 10, opsMax: 2 },
    ];
    Object.assign(s.workload, { workMs: timesLease(lock, 0.3), thinkMs: timesLease(lock, 0.05) });
    s.durationMs = timesLease(lock, 10);
    s.challenge = { kind: "waiter-served" };
    s.network = {
      links: [
        {
          from: ["c1", "c2"],
          to: lockServersOf(lock),
          bothWays: true,
          lossRate: 0.25,
          note: "a quarter of the messages between the clients and the lock service are lost, each way, all run",
        },
      ],
    };
    return { ok: true, scenario: s };
  },
};
