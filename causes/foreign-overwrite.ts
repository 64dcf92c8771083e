import type { Cause } from "./types.js";
import { grantOfLife, s3, ms } from "./facts.js";
import { othersKeysEnded } from "./foreign-delete.js";

/**
 * An acquire that replaces the value of a lock another client still holds (GETSET, or a
 * SET without NX): typically because the lock's expiry is a timestamp in the key, judged
 * by the acquiring client's own clock, so a client whose clock runs ahead (or a holder
 * whose clock runs behind) sees a live lock as expired.
 */
export const foreignOverwrite: Cause = {
  name: "acquire-overwrites-live-lock",
  title: "Your acquire overwrites a lock another client still holds",
  meaning:
    "Your acquire replaced the value of a lock another client still held (GETSET, or SET without NX). A lock whose expiry is a timestamp stored in the key is judged expired by each client's own clock: a clock that runs ahead, or a holder whose clock steps back, makes two clients hold it at once.",
  fix: "Let Redis keep the expiry: take the lock with SET NX PX (never overwrite its value), and judge your lease on your own monotonic clock from before the request.",
  fixCode: `const started = performance.now();
if ((await redis.set(key, token, "PX", ttlMs, "NX")) === "OK") return { validUntilMs: started + ttlMs };`,
  source: "https://redis.io/docs/latest/commands/setnx/",
  recognise(f) {
    return othersKeysEnded(f, "overwritten").flatMap(({ life, by }) => {
      const g = grantOfLife(f, life);
      // A key with a TTL is live by Redis's own clock; one without is live while its holder believes it holds.
      const live = life.expireAtWallMs !== undefined || (g !== undefined && g.beliefEndUs > by.timeUs);
      if (!live) return [];
      const held = g ? `, ${ms(by.timeUs - g.okUs)} into ${life.owner}'s hold` : "";
      return [
        {
          atUs: by.timeUs,
          processes: [by.from!, life.owner!],
          sentence: `${by.from}'s ${by.name} replaced ${life.owner}'s value in ${life.key} on ${life.node} at ${s3(by.timeUs)}${held}, while ${life.owner} still held the lock.`,
        },
      ];
    });
  },
};
