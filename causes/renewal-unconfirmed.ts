import type { Cause, CauseMatch } from "./types.js";
import { s3, ms, type Facts, type GrantFact } from "./facts.js";
import { keyEndOf, toleranceUs } from "./belief-past-key.js";

/**
 * An extend that reported success before Redis renewed anything: the renewal was sent
 * and not waited for (or its refusal ignored), so the client's belief moved on while
 * the key's expiry did not, and the key expired under a client that still believed.
 */
export const renewalUnconfirmed: Cause = {
  name: "extend-unconfirmed",
  title: "Your extend reports success before Redis renewed the key",
  meaning:
    "Your extend moved your lock's own deadline on without waiting for Redis to confirm the renewal. A renewal that is delayed, lost or refused (the key had already expired) still extends what your lock believes: it works on past the key's expiry, beside the client that took the lock next.",
  fix: "Await the renewal's reply and move your deadline only when it returned 1, counting the new validity from before the request; on 0, a timeout or an error, treat the lock as lost.",
  fixCode: `const started = performance.now();
if ((await redis.eval(EXTEND, 1, key, token, ttlMs)) !== 1) return null; // lost: stop working
held.validUntilMs = started + ttlMs;`,
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  recognise(f) {
    const out: CauseMatch[] = [];
    for (const g of f.grants) {
      const k = keyEndOf(f, g);
      if (!k) continue;
      const actedUntilUs = actedUntil(g);
      const x = unconfirmed(f, g, actedUntilUs);
      if (!x || actedUntilUs - k.keyEndUs <= toleranceUs(g)) continue;
      out.push({
        atUs: Math.max(x.endUs, k.keyEndUs),
        processes: [g.process],
        sentence: `${g.process}'s extend returned success at ${s3(x.endUs)}, but Redis renewed nothing for it; the key expired at ${s3(k.keyEndUs)} and ${g.process} acted as the holder until ${s3(actedUntilUs)}, ${ms(actedUntilUs - k.keyEndUs)} later.`,
      });
    }
    return out;
  },
};

/** The last moment the client acted as the holder: its belief's end, or a later write or accepted extend. */
function actedUntil(g: GrantFact): number {
  let until = g.beliefEndUs;
  for (const w of g.writes) until = Math.max(until, w.invokeUs);
  for (const x of g.extends) if (x.ok) until = Math.max(until, x.endUs);
  return until;
}

/** The grant's first accepted extend before `beforeUs` during which Redis renewed none of its keys, nor anyone's. */
export function unconfirmed(f: Facts, g: GrantFact, beforeUs: number): GrantFact["extends"][number] | undefined {
  return g.extends.find((x) => {
    if (!x.ok || x.endUs > beforeUs) return false;
    const renewedAny = f.lives.some((l) => l.renewals.some((c) => c.from === g.process && c.timeUs >= x.invokeUs && c.timeUs <= x.endUs));
    return !renewedAny;
  });
}
