/**
 * mutex: a lock with no expiry. State = the holding grant, or null when free.
 * - acquire takes effect only when free; the grant becomes the holder.
 * - release {released: true} only by the holder (frees it); {released: false} only by
 *   a non-holder (nothing changes).
 * - read / write / extend under a grant only while that grant holds.
 * Info pruning: only an info release can help a later op (it may have freed the lock);
 * an info acquire only blocks others and an info read/write/extend changes nothing,
 * so those are never tried (see Model.infoKey).
 */
import type { Operation } from "../../../sim/history.js";
import { hashString, type Model } from "../model.js";
import { admitsLockOp, grantOf, releasedOk } from "./lock-ops.js";

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
  infoKey: (op) => (op.f === "release" ? grantOf(op) : null),
  relevantKeys: (holder) => (holder === null ? [] : [holder]),
  describeState: (holder) => (holder === null ? "free" : `held by ${holder}`),
};
