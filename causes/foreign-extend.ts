import type { Cause, CauseMatch } from "./types.js";
import { grantHeldBy, grantOfLife, s3, ms, type Facts } from "./facts.js";
import { setValue } from "./foreign-delete.js";

/**
 * An extend that renews the key without asking whose it is: a PEXPIRE (or EXPIRE, or a
 * script that does not compare) moved the expiry of a live key another client's acquire
 * had set. The extending client believes it renewed its own lock and goes on beside the
 * key's real holder.
 */
export const foreignExtend: Cause = {
  name: "extend-renews-others-key",
  title: "Your extend renews the key whoever holds it",
  meaning:
    "Your extend sets a new expiry on the lock's key (PEXPIRE) without checking that the key still holds your value. When your lease has run out and another client has taken the lock, your extend renews that client's key and reports success: you carry on as the holder beside the real one.",
  fix: 'Renew the key only if it still holds the random value your acquire wrote, in one atomic step: a Lua script that compares and sets the expiry; treat 0 as "the lock is lost".',
  fixCode: `const EXTEND = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end';
if ((await redis.eval(EXTEND, 1, key, token, ttlMs)) !== 1) throw new Error("lock lost");`,
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  recognise(f) {
    const out: CauseMatch[] = [];
    for (const life of f.lives) {
      for (const c of life.renewals) {
        if (c.from === undefined || life.owner === undefined || c.from === life.owner || setValue(f, c.from, life.value)) continue;
        out.push(extendMatch(f, life.owner, life.key, life.node, c.from, c.name, c.timeUs, grantOfLife(f, life)?.okUs));
      }
    }
    return out;
  },
};

function extendMatch(f: Facts, owner: string, key: string, node: string, by: string, name: string, atUs: number, ownerOkUs: number | undefined): CauseMatch {
  const mine = grantHeldBy(f, by, atUs);
  const since = mine ? `; ${by}'s own grant was ${ms(atUs - mine.okUs)} old` : "";
  const into = ownerOkUs !== undefined ? `, ${ms(atUs - ownerOkUs)} into ${owner}'s hold` : "";
  return {
    atUs,
    processes: [by, owner],
    sentence: `${by}'s ${name} renewed ${owner}'s key ${key} on ${node} at ${s3(atUs)}${into}${since}: ${by} took it as its own lock extended.`,
  };
}
