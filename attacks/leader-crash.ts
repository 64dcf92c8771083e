import type { Attack } from "./types.js";
import { baseScenario, isRaftDesign, issuesFencingTokens, timesLease } from "./lease.js";

export const leaderCrash: Attack = {
  name: "leader-crash",
  title: "The lock service's leader crashes while the lock is held and a waiter waits; it restarts a lease later",
  story:
    "A quarter of a lease into the hold, the server leading the lock service (whichever it is then) crashes; it restarts a lease later with its log and rejoins as a follower. The others elect a new leader, which must keep the holder's session or lease alive from its own election (the holder's pings or keepalives reach it after a retry) and hand the lock to the waiter only when the holder releases. A service that loses or expires the holder's session on the way lets the waiter in beside it.",
  source: "https://raft.github.io/raft.pdf",
  compile(lock) {
    if (!isRaftDesign(lock)) {
      return {
        ok: false,
        refusal: `no elected leader in ${lock.design}: ${lock.design === "redis-failover" ? "its primary is chosen by Sentinel (see async-failover)" : "its Redis nodes are independent"}`,
      };
    }
    const s = baseScenario(lock, this.name, this.title, this.story);
    if (issuesFencingTokens(lock)) s.workload.fencing = true;
    // The holder works past the election, so the new leader must carry its session.
    Object.assign(s.workload, { workMs: timesLease(lock, 0.75), validityCheck: "before-read-and-write" });
    s.durationMs = timesLease(lock, 6);
    s.challenge = { kind: "waiter-served" };
    s.faults.push({
      on: { process: "c1", f: "acquire", type: "ok", nth: 1 },
      delayMs: timesLease(lock, 0.25),
      kind: "crash",
      target: "@leader",
      durationMs: timesLease(lock, 1),
      note: "the leader crashes a quarter of a lease into the hold and restarts a lease later",
    });
    return { ok: true, scenario: s };
  },
};
