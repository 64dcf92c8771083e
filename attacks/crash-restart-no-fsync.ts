import type { Attack, LockUnderTest } from "./types.js";
import { baseScenario, profileOfLock, timesLease } from "./lease.js";

/** The node a restart takes the key from: the only one, or (Redlock) one of the majority the holder locked. */
function victimOf(lock: LockUnderTest): string | undefined {
  return profileOfLock(lock).keyNodes[0];
}

export const crashRestartNoFsync: Attack = {
  name: "crash-restart-no-fsync",
  title: "A node holding the key crashes and restarts without it (no fsync), while the holder works",
  story:
    "Just after the grant, a Redis node that holds the key crashes and restarts at once. It persisted nothing (no AOF, or AOF without fsync always), so it comes back without the key. On a single node a waiter locks at once; with Redlock the waiter needs a majority, and the restarted node is one more vote for it, so two clients can each hold a majority. antirez's answer is to keep a restarted node out for longer than the longest lease (delayed restart); fsync always closes the hole at a cost.",
  source: "http://antirez.com/news/101",
  compile(lock) {
    const node = victimOf(lock);
    if (!node) return { ok: false, refusal: `not compiled for ${lock.design}: its state is replicated by consensus or failover, no lone node to lose the key` };
    // The lock's own persistence if it sets one (appendfsync always survives this), else none.
    const options = { persistence: "none", ...lock.designOptions };
    const s = baseScenario({ ...lock, designOptions: options }, this.name, this.title, this.story);
    s.workload.workMs = timesLease(lock, 0.6);
    s.challenge = { kind: "waiter-served" };
    s.faults.push({
      on: { process: "c1", f: "acquire", type: "ok", nth: 1 },
      delayMs: 1,
      kind: "restart",
      target: node,
      note: `${node} restarts just after the grant; without an fsynced AOF it comes back empty`,
    });
    return { ok: true, scenario: s };
  },
};
