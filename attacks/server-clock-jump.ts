import type { Attack, LockUnderTest } from "./types.js";
import { baseScenario, profileOfLock, timesLease } from "./lease.js";

/** The process that holds the key, where one node alone does (its clock decides the key's expiry). */
function keyNodeOf(lock: LockUnderTest): string | undefined {
  const nodes = profileOfLock(lock).keyNodes;
  return nodes.length === 1 ? nodes[0] : undefined;
}

export const serverClockJump: Attack = {
  name: "server-clock-jump",
  title: "The clock of the node that holds the key jumps forward just after the grant",
  story:
    "Just after the holder is granted the lock, the wall clock of the node holding the key jumps forward by 1.5x the lease (an NTP step, an operator). The key expires at once by the node's clock, a waiter takes the lock while the holder is still in its critical section.",
  source: "http://antirez.com/news/101",
  compile(lock) {
    const node = keyNodeOf(lock);
    if (!node) return { ok: false, refusal: `no single node holds the key: ${lock.design} is not a single Redis` };
    const s = baseScenario(lock, this.name, this.title, this.story);
    s.workload.workMs = timesLease(lock, 0.5);
    s.faults.push({
      on: { process: "c1", f: "acquire", type: "ok", nth: 1 },
      delayMs: 0,
      kind: "clock-jump",
      target: node,
      deltaMs: timesLease(lock, 1.5),
      note: "the key's node jumps its clock forward by 1.5x the lease just after the grant",
    });
    return { ok: true, scenario: s };
  },
};
