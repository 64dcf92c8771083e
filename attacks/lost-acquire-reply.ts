import type { Attack } from "./types.js";
import { baseScenario, lockServersOf, timesLease } from "./lease.js";

export const lostAcquireReply: Attack = {
  name: "lost-acquire-reply",
  title: "The waiter's acquire replies are lost while another client holds the lock, and it retries",
  story:
    "Another client holds the lock. The waiter asks for it; the lock service's answers to the waiter are lost for 0.3x the lease, so its request times out and it retries. The retry is refused, as the first request was: the lock is someone else's. A client that takes a refused retry as proof that its first request must have landed walks in beside the holder; a correct one asks whether the key holds its own token (or keeps waiting), and gets the lock once the holder is done.",
  source: "https://github.com/simstudioai/sim/pull/6864",
  compile(lock) {
    const s = baseScenario(lock, this.name, this.title, this.story);
    // c2 holds first; c1 (the waiter) comes while c2 works, and its replies are cut.
    s.clients = [
      { id: "c2", startMs: 0, opsMax: 1 },
      { id: "c1", startMs: timesLease(lock, 0.1), opsMax: 1 },
    ];
    // The holder works 0.9x the lease: on a real network the replies a cut held arrive at TCP's
    // first resend after the heal, not at the heal, and the refused retry must land in the hold.
    s.workload.workMs = timesLease(lock, 0.9);
    s.challenge = { kind: "waiter-served" };
    s.faults.push({
      on: { process: "c1", f: "acquire", type: "invoke", nth: 1 },
      delayMs: 0,
      kind: "cut",
      links: lockServersOf(lock).map((server): [string, string] => [server, "c1"]),
      durationMs: timesLease(lock, 0.3),
      note: "the lock service's replies to the waiter are lost for 0.3x the lease, from its first acquire",
    });
    return { ok: true, scenario: s };
  },
};
