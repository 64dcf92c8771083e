/**
 * mutex: a lock with no expiry. State = the holding grant, or null when free.
 * - acquire takes effect only when free; the grant becomes the holder.
 * - release {released: true} only by the holder (frees it); {released: false} only by
 *   a non-holder (nothing changes).
 * - read / write / extend under a grant only while that grant holds.
 *
 * Info pruning (Model.infoKeys; the brute-force oracle has none and the property tests
 * compare the two):
 * - an info release of g is tried only while g holds: it may have freed the lock;
 * - an info acquire of g is tried only while the lock is free, and only if some op
 *   other than an acquire acts under g and may follow it (else it is dominated: see
 *   lockInfoKeys). With no grant ids this is the repro `c1 acquire (no reply), c1
 *   release -> released:true`, which is linearizable;
 * - an info read, write or extend never changes the state, so it is never tried.
 */
import type { Operation } from "../../../sim/history.js";
import { hashString, type Model } from "../model.js";
import { acquireKeys, admitsLockOp, grantOf, heldBy, lockInfoKeys, releasedOk } from "./lock-ops.js";

export type MutexState = string | null;

export const mutexModel: Model<MutexState> = {
  name: "mutex",
  description: "acquire only when free; release, read, write only by the holder; no expiry",
  admits: admitsLockOp,
  init: () => null,
  step(holder: MutexState, op: Operation): MutexState | undefined {
    const g = grantOf(op);
    switch (op.f) {
      case "acquire":
        return holder === null ? g : undefined;
      case "release":
        if (op.outcome === "info") return holder === g ? null : undefined;
        if (releasedOk(op)) return holder === g ? null : undefined;
        return holder === g ? undefined : holder;
      default: // read, write, extend
        return holder === g ? holder : undefined;
    }
  },
  equal: (a, b) => a === b,
  hash: (s) => (s === null ? 0 : hashString(s)),
  infoKeys: (ops) => lockInfoKeys(ops, () => null),
  relevantKeys: (holder, next) => (holder === null ? acquireKeys(next, null) : [heldBy(holder)]),
  describeState: (holder) => (holder === null ? "free" : `held by ${holder}`),
};
