import type { Attack } from "./types.js";
import { baseScenario, timesLease } from "./lease.js";

export const holderPauseDuringRelease: Attack = {
  name: "holder-pause-during-release",
  title: "The holder pauses past its lease while its release is in flight",
  story:
    "The holder finishes its work and starts its release; at that moment a stop-the-world pause freezes it for 1.5x the lease. Its lease lapses and a waiter takes the lock; a third client waits behind it. A release made of one atomic command (a compare-and-delete script) was already on its way and deletes only the holder's own key; one made of two commands (GET, compare, then DEL) sends its DEL after the pause and deletes the new holder's key, so the third client takes the lock beside it.",
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    s.clients = [
      { id: "c1", startMs: 0, opsMax: 1 },
      { id: "c2", startMs: 10, opsMax: 1, workMs: timesLease(lock, 0.8) },
      { id: "c3", startMs: 20, opsMax: 1 },
    ];
    s.durationMs = timesLease(lock, 8);
    s.challenge = { kind: "granted-during-release" };
    s.faults.push({
      on: { process: "c1", f: "release", type: "invoke", nth: 1 },
      delayMs: 0,
      kind: "pause",
      target: "c1",
      durationMs: timesLease(lock, 1.5),
      note: "the holder pauses for 1.5x its lease just after starting its release",
    });
    return { ok: true, scenario: s };
  },
};
