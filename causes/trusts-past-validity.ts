import type { Cause, CauseMatch } from "./types.js";
import { s3, ms } from "./facts.js";
import { beliefsPastKey, reportedValidityEndUs, toleranceUs } from "./belief-past-key.js";
import { unconfirmed } from "./renewal-unconfirmed.js";

/**
 * A lock whose holds() goes on saying yes after the validity it reported has run out:
 * it trusts the grant instead of measuring it, so a holder that works long (or is cut
 * off from Redis) works on after the key expired. After a step back of the client's
 * wall clock a lease on the wall clock looks the same: both match, as alternatives.
 */
export const trustsPastValidity: Cause = {
  name: "holds-ignores-validity",
  title: "Your lock still says it holds after its validity ran out",
  meaning:
    "Your holds() kept saying yes after the validity your acquire reported had run out: the grant is trusted, not measured. A holder that works past its lease (slow work, a partition, a pause) then writes after Redis expired its key and gave the lock to another client.",
  fix: "Have holds() compare the lease's end (counted from before the request) with the monotonic clock, and check it before each write.",
  fixCode: `held.validUntilMs = started + ttlMs; // started = performance.now() before the SET
const holds = () => held.validUntilMs > performance.now();`,
  source: "https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html",
  recognise(f) {
    const out: CauseMatch[] = [];
    for (const b of beliefsPastKey(f)) {
      if (unconfirmed(f, b.g, b.g.beliefEndUs)) continue;
      const validEnd = reportedValidityEndUs(b.g, b.keyEndUs);
      if (validEnd === undefined || b.g.beliefEndUs - validEnd <= toleranceUs(b.g)) continue;
      out.push({
        atUs: b.keyEndUs,
        processes: [b.g.process],
        sentence: `${b.g.process} reported a validity ending at ${s3(validEnd)}, yet went on believing it held the lock until ${s3(b.g.beliefEndUs)} (${b.g.beliefEndedBy}); Redis expired its key at ${s3(b.keyEndUs)}, ${ms(b.pastUs)} before.`,
      });
    }
    return out;
  },
};
