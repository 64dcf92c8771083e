import type { Attack } from "./types.js";
import { compileLeaderFault } from "./leader.js";

export const leaderCrashDuringAcquire: Attack = {
  name: "leader-crash-during-acquire",
  title: "The lock service's leader crashes while both clients' acquires are in flight; it restarts a lease later",
  story:
    "The holder asks for the lock and, 10 ms later, the waiter asks too; at the waiter's request the server leading the lock service crashes, with both requests in flight (committed or not, answered or not). The clients time out, find a new leader and retry. A recipe whose retry cannot tell whether its first attempt took effect (a lock node created without a GUID to find it by, a key written twice) leaves an orphan that blocks the lock or hands it to two; a protected one finds its own attempt and goes on.",
  source: "https://curator.apache.org/docs/recipes-shared-reentrant-lock",
  compile(lock) {
    return compileLeaderFault(lock, {
      ...this,
      kind: "crash",
      leases: 1,
      note: "the leader crashes as the waiter's acquire is sent, with both acquires in flight, and restarts a lease later",
      when: { on: { process: "c2", f: "acquire", type: "invoke", nth: 1 }, delayMs: 0 },
    });
  },
};
