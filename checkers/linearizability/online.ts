import type { HistoryEvent, Operation } from "../../sim/history.js";
import { BufferedChecker } from "../buffered.js";
import { Pairer } from "../pairs.js";
import { stepsMaxOf } from "../budget.js";
import type { CheckContext, CheckResult, OnlineChecker } from "../types.js";
import { CHECKER_NAME, DEFAULT_BUDGET, linearizability, modelNameFor, notLinearizable } from "./index.js";
import type { AnyModel } from "./model.js";
import { grantOf, releasedOk, ttlMsOf } from "./models/lock-ops.js";
import { makeModel, type ModelName } from "./models/index.js";
import { searchLinearization, type SearchBudget } from "./search.js";

/**
 * Linearizability over a stream, for the lock models (mutex, lease-lock), one window
 * of ops per lock. A window closes at a quiet release R: an ok release that freed the
 * lock, sent when every other op on the lock in flight was an acquire, with only
 * acquires sent while it was, and no op of unknown outcome in the window. Then:
 * - every other op of the window ended before R was sent, so precedes it;
 * - an acquire A still in flight cannot take effect before R: R frees R's own grant,
 *   so A would have to be released (its release comes after R) or taken over before
 *   R's grant was taken (under lease-lock, once A's lease may lapse: hence the check
 *   that A's lapse point is after R's call);
 * - so every linearization is the window's, then R, with the model free from R's call
 *   (lease-lock's clock at R's call: the window's ops ended before it), then the rest.
 * The history is linearizable iff each window is, from the state the last R left: each
 * is searched as it closes and dropped. A lock whose window grows past WINDOW_OPS_MAX
 * without a quiet release is "unknown" (never a guess); so is one whose search hits
 * its budget (each window gets the whole budget).
 */
export const WINDOW_OPS_MAX = 200_000;

function grantIdOf(e: HistoryEvent): unknown {
  return (e.value as { grantId?: unknown } | undefined)?.grantId;
}

const WINDOWED: ReadonlySet<ModelName> = new Set(["mutex", "lease-lock"]);

export function onlineLinearizability(ctx: CheckContext): OnlineChecker {
  const modelName = modelNameFor(ctx);
  if (!WINDOWED.has(modelName)) return new BufferedChecker(CHECKER_NAME, linearizability, ctx);
  return new OnlineLinearizability(ctx, modelName);
}

interface LockWindow {
  ops: Operation[];
  /** Ops on the lock other than acquires sent and not yet answered. */
  othersInFlight: number;
  /** Ops of unknown outcome in the window that could still take effect after a release (see infoStuck). */
  stuckInfo: number;
  /** Grants whose acquire succeeded in this window. */
  granted: Set<string>;
  /** Clients whose unknown-outcome acquire without a grant id was left behind a window. */
  leftAcquires: Set<string>;
  /** The release that may close the window, while nothing but acquires was sent during it. */
  quietRelease?: Operation;
  /** The model's state when the window opened: free, from the last quiet release's call. */
  startUs: number;
  /** Acquires in flight across the last quiet release, whose lapse point must come after its call. */
  spanning: Operation[];
  verdict?: { valid: false | "unknown"; result: CheckResult };
}

class OnlineLinearizability implements OnlineChecker {
  private readonly model: AnyModel;
  private readonly budget: SearchBudget;
  private readonly windows = new Map<string, LockWindow>();
  private readonly open = new Map<string, Operation>();
  private readonly stats = { ops: 0, infoOps: 0, statesExplored: 0, steps: 0, memoryMbEstimate: 0, windows: 0 };
  private readonly pairer = new Pairer(
    (invoke, complete) => this.answered(invoke, complete),
    (invoke) => this.unanswered(invoke),
  );

  constructor(
    private readonly ctx: CheckContext,
    private readonly modelName: ModelName,
  ) {
    this.model = makeModel(modelName, ctx);
    this.budget = {
      statesMax: ctx.searchBudget?.statesMax ?? DEFAULT_BUDGET.statesMax,
      memoryMbMax: ctx.searchBudget?.memoryMbMax ?? DEFAULT_BUDGET.memoryMbMax,
      stepsMax: stepsMaxOf(ctx),
    };
  }

  push(e: HistoryEvent): void {
    this.pairer.push(e);
    if (e.type !== "invoke") return;
    const op: Operation = { process: e.process, f: e.f, lock: e.lock, invoke: e, complete: undefined, outcome: "info", startUs: e.timeUs, endUs: Infinity };
    const w = this.windowOf(op);
    if (w.verdict) return;
    if (e.f !== "acquire") w.quietRelease = undefined;
    if (e.f === "release" && w.othersInFlight === 0 && w.stuckInfo === 0) w.quietRelease = op;
    if (e.f !== "acquire" && grantIdOf(e) === undefined && w.leftAcquires.has(e.process))
      this.giveUp(op.lock ?? "lock", w, `${e.process} acted without a grant id after an acquire of unknown outcome was left behind a quiet release`);
    if (op.f !== "acquire") w.othersInFlight++;
    w.ops.push(op);
    this.open.set(e.process, op);
    if (w.ops.length > WINDOW_OPS_MAX && !w.verdict) this.giveUp(op.lock ?? "lock", w);
  }

  result(): CheckResult {
    this.pairer.finish();
    for (const [lock, w] of [...this.windows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) this.search(lock, w);
    const failed = [...this.windows.entries()].filter(([, w]) => w.verdict).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const stats = { ...this.stats, locks: this.windows.size };
    const bad = failed.find(([, w]) => w.verdict!.valid === false) ?? failed[0];
    if (bad) return { ...bad[1].verdict!.result, stats };
    if (this.stats.ops === 0)
      return {
        checker: CHECKER_NAME,
        valid: true,
        summary: `no operations the ${this.modelName} model judges: nothing to linearize`,
        skipped: "no operations",
        stats,
      };
    const { ops, infoOps } = this.stats;
    return {
      checker: CHECKER_NAME,
      valid: true,
      summary:
        `linearizable under the ${this.modelName} model: ${ops} ops on ${this.windows.size} lock(s)` + (infoOps > 0 ? `, ${infoOps} with unknown outcome` : ""),
      stats,
    };
  }

  private windowOf(op: Operation): LockWindow {
    const lock = op.lock ?? "lock";
    let w = this.windows.get(lock);
    if (!w)
      this.windows.set(lock, (w = { ops: [], othersInFlight: 0, stuckInfo: 0, granted: new Set(), leftAcquires: new Set(), startUs: -Infinity, spanning: [] }));
    return w;
  }

  private answered(invoke: HistoryEvent, complete: HistoryEvent): void {
    const op = this.open.get(invoke.process);
    if (!op || op.invoke !== invoke) return;
    this.open.delete(invoke.process);
    if (this.windowOf(op).verdict) return;
    op.complete = complete;
    op.outcome = complete.type as Operation["outcome"];
    op.endUs = complete.type === "info" ? Infinity : complete.timeUs;
    const w = this.windowOf(op);
    if (op.f !== "acquire") w.othersInFlight--;
    if (complete.type === "info" && this.infoStuck(op, w)) w.stuckInfo++;
    if (op.f === "acquire" && complete.type === "ok") w.granted.add(grantOf(op));
    if (w.quietRelease === op && complete.type === "ok" && releasedOk(op) && w.stuckInfo === 0) this.closeWindow(op.lock ?? "lock", w, op);
  }

  private unanswered(invoke: HistoryEvent): void {
    const op = this.open.get(invoke.process);
    if (!op || op.invoke !== invoke) return;
    this.open.delete(invoke.process);
    const w = this.windowOf(op);
    if (w.verdict) return;
    if (op.f !== "acquire") w.othersInFlight--;
    if (this.infoStuck(op, w)) w.stuckInfo++;
  }

  /**
   * Whether an op of unknown outcome could still take effect after a quiet release, so
   * that the window cannot close there. An acquire without a grant id can matter only to
   * ops of its client without one (lock-ops.ts lockInfoKeys): lockstep's clients send
   * none, and one that does afterwards makes the lock "unknown". An op under a grant
   * acquired in this window can take effect only while that grant holds, and after the
   * release nothing acquires it again (grant ids name one acquire). Anything else stays.
   */
  private infoStuck(op: Operation, w: LockWindow): boolean {
    const g = grantOf(op);
    if (op.f === "acquire") return !g.startsWith("~");
    return !w.granted.has(g);
  }

  /** A quiet release was answered: search the window up to it; the acquires still in flight open the next. */
  private closeWindow(lock: string, w: LockWindow, release: Operation): void {
    // Acquires not answered before R was sent: they take effect after R (see above).
    const spanning = w.ops.filter((op) => op !== release && (op.complete === undefined || op.complete.index > release.invoke.index));
    // One whose lease may lapse before R's call could have been taken over: not quiet.
    if (spanning.some((a) => this.lapseFromUs(a) <= release.startUs)) return;
    w.ops = w.ops.filter((op) => !spanning.includes(op));
    for (const op of w.ops) if (op.f === "acquire" && op.outcome === "info") w.leftAcquires.add(op.process);
    this.search(lock, w);
    if (w.verdict) return;
    w.granted = new Set();
    w.ops = spanning;
    w.spanning = spanning;
    w.startUs = release.startUs;
    w.quietRelease = undefined;
  }

  private search(lock: string, w: LockWindow): void {
    if (w.verdict || w.ops.length === 0) return;
    const admitted = w.ops.filter((op) => (this.model.admits ? this.model.admits(op) : op.outcome !== "fail"));
    this.stats.ops += admitted.length;
    this.stats.infoOps += admitted.filter((op) => op.outcome === "info").length;
    this.stats.windows++;
    if (admitted.length === 0) return;
    const lapsed = w.spanning.find((a) => a.outcome !== "fail" && this.lapseFromUs(a) <= w.startUs);
    if (lapsed) {
      w.verdict = {
        valid: "unknown",
        result: this.unknown(`an acquire by ${lapsed.process} on lock "${lock}" in flight across a release could have lapsed before it`),
      };
      w.ops = [];
      return;
    }
    const model = w.startUs === -Infinity ? this.model : { ...this.model, init: () => this.freeAt(w.startUs) };
    const r = searchLinearization(model, admitted, this.budget);
    this.stats.statesExplored += r.statesExplored;
    this.stats.steps += r.steps;
    this.stats.memoryMbEstimate = Math.max(this.stats.memoryMbEstimate, r.memoryMbEstimate);
    if (r.valid === false)
      w.verdict = { valid: false, result: notLinearizable(this.model, this.modelName, lock, admitted, r, {}, this.ctx.timeIsOrder === true) };
    if (w.verdict) w.ops = [];
    else if (r.valid === "unknown")
      w.verdict = {
        valid: "unknown",
        result: this.unknown(`search budget hit (${r.stoppedBy ?? "budget"}) on lock "${lock}" in a window of ${admitted.length} ops between quiet releases`),
      };
  }

  private giveUp(
    lock: string,
    w: LockWindow,
    why = `lock "${lock}" had no quiet release in ${WINDOW_OPS_MAX} ops (a release with only acquires in flight)`,
  ): void {
    if (w.verdict) return;
    w.verdict = { valid: "unknown", result: this.unknown(why) };
    w.ops = [];
  }

  private unknown(why: string): CheckResult {
    return {
      checker: CHECKER_NAME,
      valid: "unknown",
      summary: `${why}: no violation found so far, but online checking cannot go on; check the history in batch (lockstep check)`,
    };
  }

  /** The model free, with lease-lock's clock at `atUs` (mutex has no clock). */
  private freeAt(atUs: number): unknown {
    return this.modelName === "mutex" ? null : { holder: null, lapseFromUs: Infinity, clockUs: atUs };
  }

  /** lease-lock's lapse point of an acquire (models/lease-lock.ts); never, under mutex. */
  private lapseFromUs(op: Operation): number {
    if (this.modelName === "mutex") return Infinity;
    const ttlMs = ttlMsOf(op) ?? this.ctx.ttlMs;
    return ttlMs === undefined ? Infinity : op.startUs + ttlMs * 1000 * (1 - (this.ctx.clockDriftPpmMax ?? 0) / 1e6);
  }
}
