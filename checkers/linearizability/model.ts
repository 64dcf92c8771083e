/**
 * The contract between the linearizability search and a sequential specification.
 * A model sees whole operations (invoke + completion) rather than bare inputs and
 * outputs, because time-aware models (lease-lock) need each operation's interval.
 */
import type { Operation } from "../../sim/history.js";

/**
 * A sequential specification. Every function must be pure: it may not mutate the
 * given state or operation, read the host clock, or keep anything between calls.
 */
export interface Model<S> {
  readonly name: string;
  /** One line for `--help` and reports. */
  readonly description: string;
  /**
   * Which of the history's operations the model speaks about. Others are left out
   * (e.g. `fail` ops, which definitely did not take effect). Default: every op
   * whose outcome is not "fail".
   */
  admits?(op: Operation): boolean;
  /**
   * Split the admitted operations into independent sub-histories, checked one by one
   * (P-compositionality). Default: by `op.lock`, missing lock = "lock".
   */
  partition?(ops: readonly Operation[]): Map<string, Operation[]>;
  init(): S;
  /**
   * The state after `op` takes effect in `state`, or undefined when `op` cannot take
   * effect there. For an op with outcome "info" the output is unknown: step must
   * accept any outcome the op could have had. The op's interval is
   * [op.startUs, op.endUs] (endUs = Infinity for info).
   */
  step(state: S, op: Operation): S | undefined;
  equal(a: S, b: S): boolean;
  /** 32-bit hash consistent with `equal`, for the memo table. */
  hash(s: S): number;
  /**
   * Pruning of info ops (which may be left out of a linearization). Called once per
   * sub-history with all its admitted ops (completed and info), in the order the search
   * got them, since a claim may depend on the rest of the sub-history (e.g. "an info
   * acquire matters only if some op acts under the grant it would create"). Returns one
   * entry per op (entries for completed ops are ignored):
   * - null: the op is dominated: whatever linearization places it, the same order
   *   without it (and without other info ops it makes pointless) is also legal, so
   *   the search never tries it;
   * - a key, or several: placing the op can help only in states whose `relevantKeys`
   *   include one of them (elsewhere its step is illegal, or it is dominated there);
   * - undefined: try it in every state.
   * Default: undefined for all.
   */
  infoKeys?(ops: readonly Operation[]): readonly InfoKey[];
  /**
   * Keys of info ops that can matter in this state (see infoKeys). `next` holds the
   * completed ops that may go next (those called before the first pending return),
   * the one whose return comes first at index 0: before it is placed, nothing called
   * later can be. Computed only when the search asks for info candidates.
   */
  relevantKeys?(state: S, next: readonly Operation[]): readonly string[];
  /**
   * True for an op that, wherever it can take effect, leaves the state as it was (a
   * register's read). The search places such an op as soon as it can take effect and
   * tries no other op in its place. Default: false for every op.
   */
  readOnly?(op: Operation): boolean;
  /** A short readable rendering of a state, for witnesses. */
  describeState?(s: S): string;
  /**
   * Optional, for speed: the model's rules for one sub-history's ops by their position in
   * `ops`, with each op's value read once before the search rather than at every step.
   * Must answer exactly as step, infoKeys and relevantKeys do (see bindModel).
   */
  bind?(ops: readonly Operation[]): BoundModel<S>;
}

/** A model's step, infoKeys and relevantKeys for the ops of one sub-history, by position. */
export interface BoundModel<S> {
  /** step(state, ops[i]). */
  step(state: S, i: number): S | undefined;
  /** infoKeys(ops), or undefined when the model has none. */
  readonly infoKeys: readonly InfoKey[] | undefined;
  /** relevantKeys(state, the ops at positions `next`), or undefined when the model has none. */
  readonly relevantKeys: ((state: S, next: readonly number[]) => readonly string[]) | undefined;
}

/** The model's own bind, or its step, infoKeys and relevantKeys called with the ops. */
export function bindModel<S>(model: Model<S>, ops: readonly Operation[]): BoundModel<S> {
  if (model.bind) return model.bind(ops);
  const relevantKeys = model.relevantKeys?.bind(model);
  return {
    step: (s, i) => model.step(s, ops[i]!),
    infoKeys: model.infoKeys?.(ops),
    relevantKeys: relevantKeys
      ? (s, next) =>
          relevantKeys(
            s,
            next.map((i) => ops[i]!),
          )
      : undefined,
  };
}

/** What infoKeys says about one info op: see Model.infoKeys. */
export type InfoKey = string | readonly string[] | null | undefined;

/** Erased model type for registries. */
export type AnyModel = Model<any>;

/** Mixes a 32-bit value (murmur3 finalizer); used by models to build hashes. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash of a string (FNV-1a, then mixed). */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

/** Hash of a finite or infinite number. */
export function hashNumber(n: number): number {
  if (!Number.isFinite(n)) return n > 0 ? 0x7f800000 : 0xff800000;
  // Split into two 32-bit halves so large µs timestamps keep their low bits.
  const lo = (n % 0x100000000) | 0;
  const hi = Math.floor(n / 0x100000000) | 0;
  return mix32(lo ^ mix32(hi + 0x9e3779b9));
}

/** Order-dependent combination of hashes. */
export function combineHash(a: number, b: number): number {
  return mix32((Math.imul(a, 31) + b) | 0);
}
