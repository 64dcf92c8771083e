import type { Cause, CauseMatch } from "./types.js";
import { s3 } from "./facts.js";

/**
 * Two clients' acquires wrote the same value into the lock's key: a compare-and-delete
 * or compare-and-extend by one then matches the other's key, as if it had none.
 */
export const sharedSecret: Cause = {
  name: "grants-share-a-secret",
  title: "Two of your grants write the same value",
  meaning:
    "Two clients' acquires wrote the same value into the lock's key. Your release and extend compare that value to tell your key from another's: with the same value, one client's release deletes (or its extend renews) the other's lock.",
  fix: "Write a value unique to each acquire: 16 random bytes from a cryptographic source, never a constant, a host name or a process id.",
  fixCode: `const token = randomBytes(16).toString("hex"); // node:crypto, new for every acquire
await redis.set(key, token, "PX", ttlMs, "NX");`,
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  recognise(f) {
    const firstBy = new Map<string, { owner: string; atUs: number }>();
    const out: CauseMatch[] = [];
    for (const l of f.lives) {
      if (l.owner === undefined) continue;
      const first = firstBy.get(l.value);
      if (!first) firstBy.set(l.value, { owner: l.owner, atUs: l.startUs });
      else if (first.owner !== l.owner) {
        out.push({
          atUs: l.startUs,
          processes: [l.owner, first.owner],
          sentence: `${l.owner} set ${l.key} to ${JSON.stringify(l.value)} at ${s3(l.startUs)}, the value ${first.owner} had written at ${s3(first.atUs)}.`,
        });
      }
    }
    return out;
  },
};
