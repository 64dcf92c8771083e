import type { Cause, CauseMatch } from "./types.js";
import { s3, ms, type Facts } from "./facts.js";
import { beliefsPastKey, reportedValidityEndUs, stepBack, toleranceUs, type BeliefPastKey } from "./belief-past-key.js";
import { unconfirmed } from "./renewal-unconfirmed.js";

/**
 * A lease counted from too late: from the reply to the SET (a slow link or a delayed
 * reply makes that a trip or more after Redis set the key), or from a retry after a
 * first SET that already set the key. The client believes its whole TTL from then on,
 * while Redis expires the key a TTL after it set it.
 */
export const validityCountedLate: Cause = {
  name: "lease-counted-from-reply",
  title: "Your lock counts its lease from the reply, not from the request",
  meaning:
    "Your lock counts its lease from a moment after Redis set the key: from the reply to the SET, or from a retry after a first SET that timed out but had set the key. Redis expires the key a TTL after it set it, so on a slow link or after a delayed reply your code believes it holds the lock after another client has taken it.",
  fix: "Read the monotonic clock before sending the first SET of the acquire, and count the lease from there: validity = TTL minus the time since then.",
  fixCode: `const started = performance.now(); // before the first SET (keep it across retries)
if ((await redis.set(key, token, "PX", ttlMs, "NX")) === "OK")
  return { handle, validityMs: started + ttlMs - performance.now() };`,
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  recognise(f) {
    const out: CauseMatch[] = [];
    for (const b of beliefsPastKey(f)) {
      if (unconfirmed(f, b.g, b.g.beliefEndUs)) continue;
      if (stepBack(f, b.g)) continue;
      const validEnd = reportedValidityEndUs(b.g, b.keyEndUs);
      if (validEnd !== undefined && b.g.beliefEndUs - validEnd > toleranceUs(b.g)) continue;
      out.push({ atUs: b.keyEndUs, processes: [b.g.process], sentence: sentence(f, b, validEnd ?? b.g.beliefEndUs) });
    }
    return out;
  },
};

/** Where the client's lease began, by its own account (its validity's end less the TTL), against when Redis set the key. */
function sentence(f: Facts, b: BeliefPastKey, validEndUs: number): string {
  const { g, life } = b;
  const countedFromUs = validEndUs - (g.ttlMs ?? 0) * 1000;
  const retry = f.commands
    .filter((c) => c.from === g.process && c.node === life.node && c.timeUs > life.startUs && c.timeUs <= g.okUs && c.key === life.key)
    .at(-1);
  const from =
    Math.abs(countedFromUs - g.okUs) <= toleranceUs(g)
      ? `the reply to its acquire at ${s3(g.okUs)}`
      : retry && countedFromUs > life.startUs
        ? `its retry (its ${retry.name} at ${s3(retry.timeUs)} found the key already set)`
        : s3(countedFromUs);
  return (
    `${g.process} counted its lease from ${from}, ${ms(countedFromUs - life.startUs)} after Redis set its key at ${s3(life.startUs)}; ` +
    `Redis expired the key at ${s3(b.keyEndUs)} and ${g.process} believed it held the lock ${ms(b.pastUs)} longer.`
  );
}
