/**
 * Which checkers apply to a history from elsewhere, and whether its model can judge
 * every op in it. A register history gets linearizability under a register model and
 * none of the lock checkers (no holds, no fencing, no TTL to wait out); an op the model
 * has no rule for (a list `append` checked as a register) is refused by name rather
 * than silently left out, which would judge a history other than the one given.
 */
import { NEMESIS, type HistoryEvent } from "../sim/history.js";
import type { CheckContext } from "./types.js";
import { MODEL_FAMILY, MODEL_OPS, knossosModelsOf, type ModelFamily, type ModelName } from "./linearizability/models/index.js";
import { modelNameFor } from "./linearizability/index.js";
import { microOps } from "./linearizability/models/multi-register.js";

/** Processes that are not clients: their events are notes, not ops a model judges. */
const NOT_CLIENTS: ReadonlySet<string> = new Set([NEMESIS, "storage"]);
/** Checkers that judge holds, fencing or waits: they say nothing about a register. */
const LOCK_CHECKERS: ReadonlySet<string> = new Set(["mutual-exclusion", "lost-updates", "fencing", "liveness"]);
const LOCK_ONLY_OPS: ReadonlySet<string> = new Set(["acquire", "release", "extend"]);

const clientInvokes = (history: readonly HistoryEvent[]): HistoryEvent[] => history.filter((e) => e.type === "invoke" && !NOT_CLIENTS.has(e.process));

/**
 * The model for a history: ctx.model, else a lock model if any client acquires,
 * releases or extends (lease-lock with a TTL, else mutex), else multi-register if any op
 * is a txn, else cas-register if any op is a cas, else register if there are reads or
 * writes, else the lock default.
 */
export function modelForHistory(history: readonly HistoryEvent[], ctx: CheckContext): ModelName {
  if (ctx.model !== undefined) return modelNameFor(ctx);
  const fs = new Set(clientInvokes(history).map((e) => e.f));
  const lock = [...fs].some((f) => LOCK_ONLY_OPS.has(f));
  if (!lock && fs.has("txn")) return "multi-register";
  if (!lock && fs.has("cas")) return "cas-register";
  if (!lock && (fs.has("read") || fs.has("write"))) return "register";
  return modelNameFor(ctx);
}

export interface UnsupportedOp {
  /** Index of the offending invoke in the history. */
  index: number;
  f: string;
  /** What the model expected, in words. */
  expected: string;
}

function isCasValue(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 2;
  return v !== null && typeof v === "object" && "from" in v && "to" in v;
}

/** The first client op the model cannot judge, or undefined when it can judge them all. */
export function unsupportedOp(history: readonly HistoryEvent[], model: ModelName): UnsupportedOp | undefined {
  const known = MODEL_OPS[model];
  for (const e of clientInvokes(history)) {
    if (!known.includes(e.f)) {
      const knossos = knossosModelsOf(e.f);
      return { index: e.index, f: e.f, expected: `an op the ${model} model has (${known.join(", ")})${knossos ? `; this op is ${knossos}` : ""}` };
    }
    if (e.f === "cas" && !isCasValue(e.value)) return { index: e.index, f: e.f, expected: "a cas value [from to] (or {from, to})" };
    if (e.f === "txn" && microOps(e.value) === undefined)
      return { index: e.index, f: e.f, expected: "a txn value [[:read :x v] [:write :y v] ...] (or :r, :w)" };
  }
  return undefined;
}

/**
 * Why checker `name` does not apply to a history of this family, or undefined when it
 * does. Only linearizability speaks about registers; liveness needs a TTL to tell a
 * slow grant from a lease running out, and a history from elsewhere may not give one.
 */
export function notApplicable(name: string, family: ModelFamily, history: readonly HistoryEvent[], ctx: CheckContext): string | undefined {
  if (!LOCK_CHECKERS.has(name)) return undefined;
  if (family === "register") return `a lock checker; the history is a register's (no acquires)`;
  if (name === "liveness" && ctx.ttlMs === undefined && ctx.sessionTimeoutMs === undefined && ctx.livenessBoundMs === undefined) {
    const asked = history.some((e) => e.f === "acquire" && typeof (e.value as { ttlMs?: unknown } | undefined)?.ttlMs === "number");
    if (!asked) return "no TTL known (pass --ttl-ms to judge waits)";
  }
  return undefined;
}

export function familyOf(model: ModelName): ModelFamily {
  return MODEL_FAMILY[model];
}
