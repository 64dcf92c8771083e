import type { Attack } from "./types.js";
import { baseScenario, lockServersOf, timesLease } from "./lease.js";

export const acquireReplyDelayed: Attack = {
  name: "acquire-reply-delayed",
  title: "The holder's acquire lands, but its reply is delayed past the client's command timeout",
  story:
    "The holder's SET (or create) lands at once, but the lock service's reply to it is delayed by 0.3x the lease, longer than any command timeout. A client without a timeout waits for it and counts its lease from its request. One that times out retries: the retry is refused, the key already being its own, and a careful client then checks that the key holds its token. It must count the lease from the first request, the one that set the key; counting it from the retry or the check, it believes it holds 0.3x the lease longer than the key lives. The holder works 0.85x the lease and checks before writing: the miscounting client writes after the key expired and a waiter took the lock.",
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    Object.assign(s.workload, { workMs: timesLease(lock, 0.85), validityCheck: "before-read-and-write" });
    // A real client connects when it is created (ioredis: a handshake and a ready check):
    // the holder asks once its connection is up, so the reply delayed is its acquire's. The
    // waiter comes well after it: real client processes start tens of ms apart under load.
    s.clients = [
      { id: "c1", startMs: timesLease(lock, 0.02), opsMax: 1 },
      { id: "c2", startMs: timesLease(lock, 0.15), opsMax: 1 },
    ];
    s.challenge = { kind: "expiry-handover" };
    s.faults.push({
      on: { process: "c1", f: "acquire", type: "invoke", nth: 1 },
      delayMs: 0,
      kind: "delay",
      links: lockServersOf(lock).map((server): [string, string] => [server, "c1"]),
      extraMs: timesLease(lock, 0.3),
      // Long enough for the first request's reply only (its SET may reach a loaded real server
      // tens of ms after the invoke): the retries' replies come at once.
      durationMs: timesLease(lock, 0.15),
      note: "the lock service's replies to the holder are delayed by 0.3x the lease, from its first acquire",
    });
    return { ok: true, scenario: s };
  },
};
