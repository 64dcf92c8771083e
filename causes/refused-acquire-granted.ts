import type { Cause, CauseMatch } from "./types.js";
import { s3, type Facts, type GrantFact, type KeyLife } from "./facts.js";

/**
 * An acquire that returned a grant though none of its commands set the lock's key: its
 * SETs were refused (another client held the key), or one went unanswered and a refused
 * retry was taken as "my first request must have landed", or the wait ran out and the
 * client went ahead anyway.
 */
export const refusedAcquireGranted: Cause = {
  name: "acquire-granted-without-the-key",
  title: "Your acquire returns a grant though Redis refused it",
  meaning:
    'Your acquire reported success although none of its commands set the lock\'s key: every SET NX was refused because another client held the lock. A lock that proceeds at its wait deadline, or that takes a refused retry after a timed-out SET to mean "my first SET must have landed", lets two clients in at once.',
  fix: 'Return a grant only when your own SET NX returned "OK". After a SET whose reply was lost, a refused retry is yours only if GET shows the key holds your own token; at the wait deadline, return null.',
  fixCode: `if ((await redis.set(key, token, "PX", ttlMs, "NX")) === "OK") return grant;
if (firstSetTimedOut && (await redis.get(key)) === token) return grant; // counted from the first SET
if (performance.now() + retryMs > deadline) return null;`,
  source: "https://github.com/simstudioai/sim/pull/6864",
  recognise(f) {
    if (f.lives.length === 0) return [];
    const out: CauseMatch[] = [];
    for (const g of f.grants) {
      if (g.lives.length > 0) continue;
      out.push(grantedMatch(g, heldAt(f, g)));
    }
    return out;
  },
};

/** The key another client held when `g` was granted, the lock's name in it if any is. */
function heldAt(f: Facts, g: GrantFact): KeyLife | undefined {
  const live = f.lives.filter((l) => l.owner !== g.process && l.startUs <= g.okUs && g.okUs < l.endUs);
  return live.find((l) => l.key.includes(g.lock)) ?? live[0];
}

function grantedMatch(g: GrantFact, held: KeyLife | undefined): CauseMatch {
  const whose = held ? `: ${held.owner}'s key ${held.key} held the lock on ${held.node} (set at ${s3(held.startUs)})` : "";
  return {
    atUs: g.okUs,
    processes: held?.owner !== undefined ? [g.process, held.owner] : [g.process],
    sentence: `${g.process}'s acquire returned a grant at ${s3(g.okUs)} though none of its commands since ${s3(g.invokeUs)} set the key${whose}.`,
  };
}
