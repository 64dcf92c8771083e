import type { Attack } from "./types.js";
import { compileLeaderFault } from "./leader.js";

export const leaderIsolated: Attack = {
  name: "leader-isolated",
  title: "The lock service's leader is cut off from everyone for 1.5x the lease while the lock is held",
  story:
    "A quarter of a lease into the hold, the server leading the lock service (whichever it is then) is isolated from every other process for 1.5x the lease: it still believes it leads. The majority elects a new leader, the holder's requests to the old one time out and it moves on. A service whose old leader keeps answering (reads or session checks from its own state) or whose new leader drops the holder's session lets a waiter in beside the holder; a correct one serves only through the majority.",
  source: "https://jepsen.io/analyses/etcd-3.4.3",
  compile(lock) {
    return compileLeaderFault(lock, {
      ...this,
      kind: "isolate",
      leases: 1.5,
      // Past the old leader's return: what it decided alone must not reach the holder.
      workLeases: 2,
      // A waiter that comes while the old leader is cut off: its session is the new leader's alone.
      waiterStartLeases: 0.5,
      note: "the leader is cut off from everyone a quarter of a lease into the hold, for 1.5x the lease",
    });
  },
};
