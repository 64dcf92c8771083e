/**
 * A reference oracle for tests: tries every order of every subset of info ops plus all
 * completed ops, keeping real-time order (an op whose return comes before another's
 * invoke in the history goes first). Exponential; meant for histories of at most ~8 ops. It uses the
 * model's step only (no pruning, no memo), so it also checks the search's shortcuts.
 */
import type { Operation } from "../../sim/history.js";
import type { Model } from "./model.js";

/** Real-time order: a's return is recorded before b's invoke (the history's order, not its clock). */
export function precedes(a: Operation, b: Operation): boolean {
  return Number.isFinite(a.endUs) && a.complete !== undefined && a.complete.index < b.invoke.index;
}

export function bruteForceLinearizable<S>(model: Model<S>, ops: readonly Operation[]): boolean {
  const n = ops.length;
  if (n > 12) throw new Error(`brute force is for small histories (got ${n} ops)`);
  const used = new Array<boolean>(n).fill(false);
  const isInfo = (i: number): boolean => !Number.isFinite(ops[i].endUs);
  // i may go next only if no unused op returned before i was invoked. Info ops never
  // block (they have no return), so leaving one out needs no extra branch.
  const canGo = (i: number): boolean => {
    for (let j = 0; j < n; j++) if (!used[j] && j !== i && precedes(ops[j], ops[i])) return false;
    return true;
  };
  const rec = (state: S): boolean => {
    let completedLeft = false;
    for (let i = 0; i < n; i++) if (!used[i] && !isInfo(i)) completedLeft = true;
    if (!completedLeft) return true; // remaining info ops are left out
    for (let i = 0; i < n; i++) {
      if (used[i] || !canGo(i)) continue;
      const next = model.step(state, ops[i]);
      if (next === undefined) continue;
      used[i] = true;
      const ok = rec(next);
      used[i] = false;
      if (ok) return true;
    }
    return false;
  };
  return rec(model.init());
}
