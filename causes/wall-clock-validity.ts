import type { Cause, CauseMatch } from "./types.js";
import { s3, ms } from "./facts.js";
import { beliefsPastKey, stepBack, toleranceUs } from "./belief-past-key.js";
import { unconfirmed } from "./renewal-unconfirmed.js";

/**
 * A lease measured on the wall clock: the client's wall clock stepped back during its
 * hold (NTP, an operator), and its belief grew by the step, past the key's expiry.
 */
export const wallClockValidity: Cause = {
  name: "lease-on-wall-clock",
  title: "Your lock measures its lease with the wall clock",
  meaning:
    "Your lock decides whether it still holds the lease by the wall clock (Date.now()). The wall clock steps when NTP or an operator sets it: stepped back, it makes an expired lease look valid, and your code works on after Redis has given the lock to another client.",
  fix: "Measure the lease on the monotonic clock (performance.now() or process.hrtime()), from before the request.",
  fixCode: `const started = performance.now(); // not Date.now()
if ((await redis.set(key, token, "PX", ttlMs, "NX")) === "OK") held.validUntilMs = started + ttlMs;
const holds = () => held.validUntilMs > performance.now();`,
  source: "https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html",
  recognise(f) {
    const out: CauseMatch[] = [];
    for (const b of beliefsPastKey(f)) {
      if (unconfirmed(f, b.g, b.g.beliefEndUs)) continue;
      // A step back during the hold that accounts for the belief's excess.
      const step = stepBack(f, b.g);
      if (!step || b.pastUs > -step.deltaMs * 1000 + toleranceUs(b.g)) continue;
      out.push({
        atUs: b.keyEndUs,
        processes: [b.g.process],
        sentence: `${b.g.process}'s wall clock stepped back ${ms(-step.deltaMs * 1000)} at ${s3(step.atUs)}, during its hold; Redis expired its key at ${s3(b.keyEndUs)} and ${b.g.process} believed it held the lock ${ms(b.pastUs)} longer.`,
      });
    }
    return out;
  },
};
