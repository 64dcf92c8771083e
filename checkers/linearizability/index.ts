/**
 * The linearizability checker: pair the history's operations, keep those the model
 * speaks about, split them by lock (P-compositionality: a history is linearizable iff
 * each lock's sub-history is), and run the WGL search on each.
 */
import { InputError } from "../../sim/errors.js";
import { pairOperations, type HistoryEvent, type Operation } from "../../sim/history.js";
import type { CheckContext, CheckResult } from "../types.js";
import { viewOp, type OpView } from "./describe.js";
import type { AnyModel } from "./model.js";
import { KNOSSOS_REFUSED, MODEL_FAMILY, MODEL_NAMES, isModelName, makeModel, type ModelName } from "./models/index.js";
import { searchLinearization, type SearchBudget, type SearchResult } from "./search.js";
import { stepsMaxOf } from "../budget.js";

/** The CLI flag that raises each search budget, named in every "unknown" it causes. */
const BUDGET_FLAGS: Record<string, string> = { statesMax: "--states-max", memoryMbMax: "--memory-mb-max", stepsMax: "--steps-max" };

export const CHECKER_NAME = "linearizability";

/** Defaults chosen so a 100k-op lock history fits easily and a pathological one stops in seconds. */
export const DEFAULT_BUDGET: SearchBudget = { statesMax: 2_000_000, memoryMbMax: 768 };

/** At most this many ops of the prefix are shown in a witness (the tail, nearest the failure). */
const PREFIX_SHOWN_MAX = 20;

export interface LinearizabilityWitness {
  model: ModelName;
  lock: string;
  /** Ops in the longest linearizable prefix found. */
  prefixLength: number;
  /** Its last ops, in linearization order. */
  prefixTail: OpView[];
  /** The model state after the prefix. */
  state: string;
  /** Ops that could go next but cannot take effect in that state. */
  cannotFollow: OpView[];
}

/** The model named by ctx.model, else lease-lock when a TTL is known, else mutex. */
export function modelNameFor(ctx: CheckContext): ModelName {
  const name = ctx.model ?? (ctx.ttlMs !== undefined ? "lease-lock" : "mutex");
  const refused = KNOSSOS_REFUSED[name];
  if (refused !== undefined)
    throw new InputError("<arg>", "--model", `one of ${MODEL_NAMES.join(", ")}: Knossos' ${name} model (${refused.why}) is not one lockstep checks`);
  if (!isModelName(name)) throw new InputError("<arg>", "model", `one of ${MODEL_NAMES.join(", ")} (got "${name}")`);
  return name;
}

function partitionByLock(ops: readonly Operation[]): Map<string, Operation[]> {
  const parts = new Map<string, Operation[]>();
  for (const op of ops) {
    const key = op.lock ?? "lock";
    const list = parts.get(key);
    if (list) list.push(op);
    else parts.set(key, [op]);
  }
  return parts;
}

/** The verdict on a lock whose search failed: the longest prefix, the state after it, the ops that cannot follow. */
export function notLinearizable(
  model: AnyModel,
  modelName: ModelName,
  lock: string,
  lockOps: readonly Operation[],
  r: SearchResult<unknown>,
  stats: Record<string, number>,
  order = false,
): CheckResult {
  const witness: LinearizabilityWitness = {
    model: modelName,
    lock,
    prefixLength: r.longestPrefix.length,
    prefixTail: r.longestPrefix.slice(-PREFIX_SHOWN_MAX).map((i) => viewOp(lockOps[i], order)),
    state: model.describeState ? model.describeState(r.stateAfterPrefix) : JSON.stringify(r.stateAfterPrefix),
    cannotFollow: r.stuck.map((i) => viewOp(lockOps[i], order)),
  };
  const first = witness.cannotFollow[0];
  return {
    checker: CHECKER_NAME,
    valid: false,
    summary:
      `${MODEL_FAMILY[modelName] !== "register" ? `lock "${lock}"` : lock === "lock" ? "the register" : `register "${lock}"`} is not linearizable under the ${modelName} model: after ${witness.prefixLength} ops ` +
      `(state: ${witness.state}) ${first ? `${first.text} cannot take effect` : "no op can take effect"}`,
    witness,
    stats,
  };
}

function budgetOf(ctx: CheckContext): SearchBudget {
  return {
    statesMax: ctx.searchBudget?.statesMax ?? DEFAULT_BUDGET.statesMax,
    memoryMbMax: ctx.searchBudget?.memoryMbMax ?? DEFAULT_BUDGET.memoryMbMax,
    stepsMax: stepsMaxOf(ctx),
  };
}

/** Where a search stopped on its budget: the lock, what ran out, and how far it got. */
type StoppedSearch = { lock: string; stoppedBy: string; prefixLength: number; opsInLock: number };

function budgetHit(modelName: string, unknown: StoppedSearch, budget: SearchBudget, stats: Record<string, number>): CheckResult {
  return {
    checker: CHECKER_NAME,
    valid: "unknown",
    summary:
      `search budget hit (${unknown.stoppedBy}) on lock "${unknown.lock}" after ${stats.statesExplored} states ` +
      `(~${stats.memoryMbEstimate} MB): linearized ${unknown.prefixLength} of ${unknown.opsInLock} ops at best; ` +
      `no violation found so far; raise ${unknown.stoppedBy} with ${BUDGET_FLAGS[unknown.stoppedBy] ?? "--steps-max"} N`,
    witness: { model: modelName, ...unknown, budget },
    stats,
  };
}

export function linearizability(history: readonly HistoryEvent[], ctx: CheckContext): CheckResult {
  const modelName = modelNameFor(ctx);
  const model: AnyModel = makeModel(modelName, ctx);
  const { ops } = pairOperations(history);
  const admitted = ops.filter((op) => (model.admits ? model.admits(op) : op.outcome !== "fail"));
  const parts = model.partition ? model.partition(admitted) : partitionByLock(admitted);
  const budget = budgetOf(ctx);
  const infoOps = admitted.filter((op) => op.outcome === "info").length;
  const stats: Record<string, number> = {
    ops: admitted.length,
    infoOps,
    locks: parts.size,
    statesExplored: 0,
    steps: 0,
    memoryMbEstimate: 0,
  };
  if (admitted.length === 0)
    return {
      checker: CHECKER_NAME,
      valid: true,
      summary: `no operations the ${modelName} model judges: nothing to linearize`,
      skipped: "no operations",
      stats,
    };
  let unknown: StoppedSearch | undefined;
  // Locks in name order so the verdict and witness do not depend on Map insertion order.
  for (const lock of [...parts.keys()].sort()) {
    const lockOps = parts.get(lock)!;
    const remaining: SearchBudget = {
      statesMax: Math.max(1, budget.statesMax - stats.statesExplored),
      memoryMbMax: Math.max(1, budget.memoryMbMax - stats.memoryMbEstimate),
      stepsMax: Math.max(1, budget.stepsMax! - stats.steps),
    };
    const r = searchLinearization(model, lockOps, remaining);
    stats.statesExplored += r.statesExplored;
    stats.steps += r.steps;
    stats.memoryMbEstimate = Math.round((stats.memoryMbEstimate + r.memoryMbEstimate) * 10) / 10;
    if (r.valid === false) return notLinearizable(model, modelName, lock, lockOps, r, stats, ctx.timeIsOrder === true);
    if (r.valid === "unknown") {
      unknown = { lock, stoppedBy: r.stoppedBy ?? "budget", prefixLength: r.longestPrefix.length, opsInLock: lockOps.length };
      break;
    }
  }
  if (unknown) return budgetHit(modelName, unknown, budget, stats);
  return {
    checker: CHECKER_NAME,
    valid: true,
    summary:
      `linearizable under the ${modelName} model: ${admitted.length} ops on ${parts.size} lock(s)` +
      (infoOps > 0 ? `, ${infoOps} with unknown outcome` : "") +
      (admitted.length === 0 ? ` (no ops the ${modelName} model speaks about)` : ""),
    stats,
  };
}
