import type { Attack } from "./types.js";
import { baseScenario, issuesFencingTokens, timesLease } from "./lease.js";

export const holderPauseBeforeWrite: Attack = {
  name: "holder-pause-before-write",
  title: "The holder pauses past its lease between its read and its write",
  story:
    "The holder takes the lock, sends its read, and a stop-the-world pause (GC, VM migration) freezes it for 1.5x the lease this lock uses. The lease lapses, a waiter takes the lock and writes; the holder wakes and finishes its read-modify-write. Only a fencing token checked by the resource stops the stale write.",
  source: "https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    if (issuesFencingTokens(lock)) s.workload.fencing = true;
    s.faults.push({
      on: { process: "c1", f: "read", type: "invoke", nth: 1 },
      delayMs: 0,
      kind: "pause",
      target: "c1",
      durationMs: timesLease(lock, 1.5),
      note: "the holder pauses for 1.5x its lease just after sending its read",
    });
    return { ok: true, scenario: s };
  },
};
