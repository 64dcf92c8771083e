/**
 * How the lock models read lockstep's lock operations (sim/history.ts): which grant an
 * op speaks for, and what a release said. Imported histories (Jepsen EDN, hand-written
 * JSONL) may carry no grant ids; there the process stands for its grant (`~c1`), as a
 * Jepsen lock client's process holds at most one lock at a time.
 */
import type { Operation } from "../../../sim/history.js";
import type { InfoKey } from "../model.js";

export const LOCK_OPS: ReadonlySet<string> = new Set(["acquire", "release", "read", "write", "extend"]);

function field(v: unknown, name: string): unknown {
  return v !== null && typeof v === "object" ? (v as Record<string, unknown>)[name] : undefined;
}

/**
 * The grant an op acts under: an acquire's completion grantId, else the invoke's
 * grantId, else the process (`~c1`).
 *
 * An acquire whose outcome is unknown and that names no grant speaks for `~c1` too:
 * if it took effect, the grant it created is the one c1's later ops without ids act
 * under (c1 invoke acquire, no reply, c1 release -> released:true is linearizable).
 * In lockstep's own histories every acquire-ok names its grant ("c1#1") and every
 * later op carries that id, so nothing acts under `~c1` there and the models drop
 * such an acquire as dominated (see lockInfoKeys).
 */
export function grantOf(op: Operation): string {
  const fromAcquire = op.f === "acquire" ? field(op.complete?.value, "grantId") : undefined;
  const g = fromAcquire ?? field(op.invoke.value, "grantId");
  return typeof g === "string" ? g : `~${op.process}`;
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

/** Info-op key: every info acquire worth trying (see acquireKeys). */
export const ACQUIRABLE = "acquirable";

/** Info-op key: info acquires of grant g worth trying. */
export function acquireOf(g: string): string {
  return `acquire:${g}`;
}

/** Info-op key: info ops that may take effect while grant g holds. */
export function heldBy(g: string): string {
  return `held:${g}`;
}

/**
 * Latest end, per grant, of the ops other than acquires that act under it (release,
 * read, write, extend; Infinity when one of them is info). An acquire of grant g
 * invoked after that point can no longer be followed by any op acting under g.
 */
function lastUseByGrant(ops: readonly Operation[]): Map<string, number> {
  const last = new Map<string, number>();
  for (const op of ops) {
    if (op.f === "acquire") continue;
    const g = grantOf(op);
    if (op.endUs > (last.get(g) ?? -Infinity)) last.set(g, op.endUs);
  }
  return last;
}

/**
 * The shared part of the lock models' infoKeys, for info acquires and releases.
 *
 * An info release of g: key heldBy(g); it can take effect only while g holds.
 *
 * An info acquire of g: keys acquireOf(g) and ACQUIRABLE, tried where an acquire can
 * take effect (acquireKeys says which of the keys), or null (never tried) when no op
 * other than an acquire acts under g and may follow it (ends no earlier than the
 * acquire's invoke). Why that is sound: call the stretch from the acquire's point to
 * the end of the hold it adds its tenure. A tenure in which no completed op under g is
 * placed is dominated: leave the acquire out, and the info ops under g placed in the
 * tenure too, and every other op placed stays legal, in a state that is no worse. In
 * the tenure only these others can be placed: acquires (illegal under mutex; under
 * lease-lock they take over no earlier than they could from the state without the
 * hold, which had to lapse first) and releases {released:false} by other grants
 * (legal in both). Once the tenure ends (an info release of g, or a take-over), the
 * state without the acquire is free or held as before, with an earlier-or-equal clock
 * and lapse, so everything after stays legal (the steps are monotone in both).
 *
 * Other info ops get `other(op)`.
 */
export function lockInfoKeys(ops: readonly Operation[], other: (op: Operation) => string | null): InfoKey[] {
  const lastUse = lastUseByGrant(ops);
  return ops.map((op) => {
    if (op.outcome !== "info") return null;
    const g = grantOf(op);
    if (op.f === "release") return heldBy(g);
    if (op.f === "acquire") return (lastUse.get(g) ?? -Infinity) >= op.startUs ? [acquireOf(g), ACQUIRABLE] : null;
    return other(op);
  });
}

/**
 * Which info acquires are worth trying in a state where an acquire can take effect,
 * given the completed ops that may go next (`next`, first-return op first; see
 * Model.relevantKeys). Until that first-return op F is placed, only ops in `next` and
 * info ops called before F's return can be. So if no op in `next` other than an
 * acquire acts under g, an info acquire of g placed now has a tenure without a
 * completed op under g (dominated, see lockInfoKeys) unless F can be placed inside
 * the tenure without ending it: F is neither under g (none are) nor an acquire (which
 * is illegal, or takes over), so only if F is a release {released:false}. Then every
 * info acquire is tried (ACQUIRABLE); otherwise those of the grants in `next`.
 * An info acquire of the holder's own grant is left out: it could only take over its
 * own hold once that may have lapsed, which pushes clock and lapse later.
 */
export function acquireKeys(next: readonly Operation[], holder: string | null): string[] {
  const first = next[0];
  if (first === undefined) return [];
  if (first.f === "release" && first.outcome === "ok" && !releasedOk(first)) return [ACQUIRABLE];
  const keys: string[] = [];
  for (const op of next) {
    if (op.f === "acquire") continue;
    const g = grantOf(op);
    if (g === holder) continue;
    const k = acquireOf(g);
    if (!keys.includes(k)) keys.push(k);
  }
  return keys;
}
