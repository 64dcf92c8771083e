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
 * Info pruning as for mutex: only info releases are tried (an info acquire only adds a
 * hold that blocks others until it lapses; info read/write/extend only push clockUs or
 * the lapse later, which never helps).
 */
import type { Operation } from "../../../sim/history.js";
import { combineHash, hashNumber, hashString, type Model } from "../model.js";
import { admitsLockOp, grantOf, releasedOk, ttlMsOf } from "./lock-ops.js";

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
          if (tLapse > op.endUs) return undefined;
          return { holder: g, lapseFromUs: lapseFrom(op), clockUs: tLapse };
        }
        case "release": {
          if (op.outcome === "info") return s.holder === g ? FREE(t0) : undefined;
          if (releasedOk(op)) return s.holder === g ? FREE(t0) : undefined;
          if (s.holder !== g) return { ...s, clockUs: t0 };
          // "not ours" from the holder itself: only if its lease had lapsed by then.
          return tLapse > op.endUs ? undefined : FREE(tLapse);
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
    hash: (s) =>
      combineHash(combineHash(s.holder === null ? 0 : hashString(s.holder), hashNumber(s.lapseFromUs)), hashNumber(s.clockUs)),
    infoKey: (op) => (op.f === "release" ? grantOf(op) : null),
    relevantKeys: (s) => (s.holder === null ? [] : [s.holder]),
    describeState: (s) =>
      s.holder === null
        ? "free"
        : `held by ${s.holder}` + (Number.isFinite(s.lapseFromUs) ? ` (may lapse from ${s.lapseFromUs} µs)` : ""),
  };
}
