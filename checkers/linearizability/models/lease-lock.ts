/**
 * lease-lock: a mutex whose grant may lapse once its TTL could have run out in true time.
 *
 * The server may have set the lease as early as the acquire's invoke, and its clock may
 * run fast by up to clockDriftPpmMax, so a grant may lapse from
 *   lapseFromUs = acquire.startUs + ttlMs * 1000 * (1 - clockDriftPpmMax / 1e6)
 * onward (an extend-ok restarts this from the extend's invoke). A second acquire is
 * legal only at a point where the holder's lease could have lapsed; after it, the first
 * holder is no longer the holder, so its later read or write is the double holding.
 *
 * Because legality depends on where in time an op takes effect, the state carries
 * clockUs: the earliest true time at which the last linearized op could have taken
 * effect. Each op must take effect in [max(clockUs, startUs, threshold), endUs].
 *
 * A release {released: false} changes nothing, whoever sends it: a client may answer it
 * without asking the server, for a session it judged expired.
 *
 * Info pruning (Model.infoKeys; the brute-force oracle has none and the property tests
 * compare the two). Every step is monotone: from a state with the same holder, an
 * earlier-or-equal lapseFromUs and clockUs, any op legal before is legal and leads to
 * such a state again. So an info op whose only effect is to push clockUs or
 * lapseFromUs later is dominated. Hence:
 * - an info release of g is tried only while g holds: it may have freed the lock;
 * - an info acquire of g is tried only where an acquire can take effect (free, or a
 *   holder whose lease may lapse), and only if some op other than an acquire acts
 *   under g and may follow it (else it is dominated: see lockInfoKeys; here the hold
 *   it adds ends no earlier than the lapse it had to wait for, so later acquires are
 *   legal no earlier than without it);
 * - an info extend of g is tried only while g holds, and only if its lapse point
 *   (invoke + ttl) is earlier than that of some acquire or extend of g: then it may
 *   have shortened the lease (a delayed extend with a short TTL arriving after a
 *   longer one), which can make another client's acquire legal. Otherwise it only
 *   pushes the lapse later, and is dominated;
 * - an info read or write only pushes clockUs later, so it is never tried.
 */
import type { Operation } from "../../../sim/history.js";
import { combineHash, hashNumber, hashString, type InfoKey, type Model } from "../model.js";
import { acquireKeys, admitsLockOp, grantOf, heldBy, lockInfoKeys, releasedOk, ttlMsOf } from "./lock-ops.js";

export interface LeaseState {
  readonly holder: string | null;
  /** From when the holder's lease may have lapsed, true µs (Infinity: never). */
  readonly lapseFromUs: number;
  /** Earliest true time the last linearized op could have taken effect, µs. */
  readonly clockUs: number;
}

export interface LeaseLockOptions {
  /** TTL for acquires whose values do not say, ms. Without one, grants never lapse. */
  ttlMs?: number;
  /** Bound on the server clock's rate error, ppm. Default 0. */
  clockDriftPpmMax?: number;
}

/**
 * Latest lapse point per grant among its acquires and TTL-setting extends: the
 * lapseFromUs a state held by that grant can have is one of these.
 */
function latestLapseByGrant(ops: readonly Operation[], lapseFrom: (op: Operation) => number): Map<string, number> {
  const latestLapse = new Map<string, number>();
  for (const op of ops) {
    if (op.f !== "acquire" && op.f !== "extend") continue;
    const l = lapseFrom(op);
    if (op.f === "extend" && !Number.isFinite(l)) continue; // keeps the lapse as it was
    const g = grantOf(op);
    if (l > (latestLapse.get(g) ?? -Infinity)) latestLapse.set(g, l);
  }
  return latestLapse;
}

export function leaseLockModel(options: LeaseLockOptions = {}): Model<LeaseState> {
  const rate = 1 - (options.clockDriftPpmMax ?? 0) / 1e6;
  const lapseFrom = (op: Operation): number => {
    const ttlMs = ttlMsOf(op) ?? options.ttlMs;
    return ttlMs === undefined ? Infinity : op.startUs + ttlMs * 1000 * rate;
  };
  const FREE = (clockUs: number): LeaseState => ({ holder: null, lapseFromUs: Infinity, clockUs });
  return {
    name: "lease-lock",
    description: "mutex whose grant may lapse once its TTL could have passed in true time",
    admits: admitsLockOp,
    init: () => FREE(-Infinity),
    step(s: LeaseState, op: Operation): LeaseState | undefined {
      const g = grantOf(op);
      const t0 = Math.max(s.clockUs, op.startUs);
      if (t0 > op.endUs) return undefined;
      // Earliest point at which the current holder's lease may be gone.
      const tLapse = Math.max(t0, s.lapseFromUs);
      switch (op.f) {
        case "acquire": {
          if (s.holder === null) return { holder: g, lapseFromUs: lapseFrom(op), clockUs: t0 };
          // A lease that never lapses is never taken over (tLapse = Infinity even for info).
          if (tLapse > op.endUs || tLapse === Infinity) return undefined;
          return { holder: g, lapseFromUs: lapseFrom(op), clockUs: tLapse };
        }
        case "release": {
          if (op.outcome === "info") return s.holder === g ? FREE(t0) : undefined;
          if (releasedOk(op)) return s.holder === g ? FREE(t0) : undefined;
          // "Not released" changes nothing, from the holder too: its lease may have lapsed
          // by then, or the client gave up a session it judged expired without asking the
          // server (the etcd recipe does). The holder keeps the lock until it may lapse,
          // when another acquire may take over as from a free lock; so this never hides a
          // second grant, and the step stays monotone in the lapse point.
          return { ...s, clockUs: t0 };
        }
        case "extend": {
          if (s.holder !== g) return undefined;
          const until = lapseFrom(op);
          return { holder: g, lapseFromUs: Number.isFinite(until) ? until : s.lapseFromUs, clockUs: t0 };
        }
        default: // read, write
          return s.holder === g ? { ...s, clockUs: t0 } : undefined;
      }
    },
    equal: (a, b) => a.holder === b.holder && a.lapseFromUs === b.lapseFromUs && a.clockUs === b.clockUs,
    hash: (s) => combineHash(combineHash(s.holder === null ? 0 : hashString(s.holder), hashNumber(s.lapseFromUs)), hashNumber(s.clockUs)),
    infoKeys(ops: readonly Operation[]): InfoKey[] {
      const latestLapse = latestLapseByGrant(ops, lapseFrom);
      return lockInfoKeys(ops, (op) => {
        if (op.f !== "extend") return null; // read, write
        const l = lapseFrom(op);
        const g = grantOf(op);
        return Number.isFinite(l) && l < (latestLapse.get(g) ?? -Infinity) ? heldBy(g) : null;
      });
    },
    relevantKeys: (s, next) =>
      s.holder === null ? acquireKeys(next, null) : Number.isFinite(s.lapseFromUs) ? [heldBy(s.holder), ...acquireKeys(next, s.holder)] : [heldBy(s.holder)],
    describeState: (s) =>
      s.holder === null ? "free" : `held by ${s.holder}` + (Number.isFinite(s.lapseFromUs) ? ` (may lapse from ${s.lapseFromUs} µs)` : ""),
  };
}
