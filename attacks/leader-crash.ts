import type { Attack } from "./types.js";
import { compileLeaderFault } from "./leader.js";

export const leaderCrash: Attack = {
  name: "leader-crash",
  title: "The lock service's leader crashes while the lock is held and a waiter waits; it restarts a lease later",
  story:
    "A quarter of a lease into the hold, the server leading the lock service (whichever it is then) crashes; it restarts a lease later with its log and rejoins as a follower. The others elect a new leader, which must keep the holder's session or lease alive from its own election (the holder's pings or keepalives reach it after a retry) and hand the lock to the waiter only when the holder releases. A service that loses or expires the holder's session on the way lets the waiter in beside it.",
  source: "https://raft.github.io/raft.pdf",
  compile(lock) {
    return compileLeaderFault(lock, {
      ...this,
      kind: "crash",
      leases: 1,
      note: "the leader crashes a quarter of a lease into the hold and restarts a lease later",
    });
  },
};
