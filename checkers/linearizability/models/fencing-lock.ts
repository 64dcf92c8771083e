/**
 * fencing-lock: each acquire-ok's token is greater than every earlier grant's token,
 * in some order consistent with real time. State = the greatest token granted so far.
 * Only acquire-oks carrying a token are admitted: an acquire whose outcome is unknown
 * may have consumed a token, but an unknown token can never make a later grant legal,
 * and holds are the other models' business. A history without tokens is trivially
 * linearizable here; the checker's summary says how many grants had tokens.
 */
import type { Operation } from "../../../sim/history.js";
import { hashNumber, type Model } from "../model.js";
import { tokenOf } from "./lock-ops.js";

export const fencingLockModel: Model<number> = {
  name: "fencing-lock",
  description: "each acquire-ok's fencing token exceeds every earlier grant's token",
  admits: (op) => op.f === "acquire" && op.outcome === "ok" && tokenOf(op) !== undefined,
  init: () => -Infinity,
  step(maxToken: number, op: Operation): number | undefined {
    const token = tokenOf(op);
    return token !== undefined && token > maxToken ? token : undefined;
  },
  equal: (a, b) => a === b,
  hash: hashNumber,
  describeState: (t) => (Number.isFinite(t) ? `greatest token granted: ${t}` : "no token granted yet"),
};
