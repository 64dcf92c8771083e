/**
 * How the lock models read lockstep's lock operations (sim/history.ts): which grant an
 * op speaks for, and what a release said. Imported histories (Jepsen EDN) carry no
 * grant ids; there the process stands for its grant, as a Jepsen lock client's
 * process holds at most one lock at a time.
 */
import type { Operation } from "../../../sim/history.js";

export const LOCK_OPS: ReadonlySet<string> = new Set(["acquire", "release", "read", "write", "extend"]);

function field(v: unknown, name: string): unknown {
  return v !== null && typeof v === "object" ? (v as Record<string, unknown>)[name] : undefined;
}

/** The grant an op acts under: acquire-ok's grantId, else the invoke's grantId, else the process. */
export function grantOf(op: Operation): string {
  const fromOk = op.f === "acquire" ? field(op.complete?.value, "grantId") : undefined;
  const g = fromOk ?? field(op.invoke.value, "grantId");
  if (typeof g === "string") return g;
  // An acquire whose outcome is unknown has no grant id yet: it gets one of its own,
  // so it can never be mistaken for a grant someone later acts under.
  if (op.f === "acquire" && op.outcome !== "ok") return `?${op.invoke.index}`;
  return `~${op.process}`;
}

/** false when a release-ok reports the key was no longer ours; true otherwise. */
export function releasedOk(op: Operation): boolean {
  return field(op.complete?.value, "released") !== false;
}

/** The fencing token of an acquire-ok, if the design issues one. */
export function tokenOf(op: Operation): number | undefined {
  const t = field(op.complete?.value, "token");
  return typeof t === "number" ? t : undefined;
}

/** TTL of an acquire or extend, ms: from its ok value, else its invoke value. */
export function ttlMsOf(op: Operation): number | undefined {
  const t = field(op.complete?.value, "ttlMs") ?? field(op.invoke.value, "ttlMs");
  return typeof t === "number" && t >= 0 ? t : undefined;
}

/** Default admission for lock models: lock ops that may have taken effect. */
export function admitsLockOp(op: Operation): boolean {
  return op.outcome !== "fail" && LOCK_OPS.has(op.f);
}
