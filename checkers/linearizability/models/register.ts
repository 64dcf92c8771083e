/**
 * register and cas-register: a single read/write register (Knossos' `register`,
 * `cas-register`; Porcupine's kv tests), so the search can be checked against other
 * checkers' known-answer histories.
 * - write v sets the value; an info write may have set it.
 * - read returns the value; an info read observed nothing and is left out, and so is
 *   an ok read with no value at all: Jepsen EDN's `:value nil`, which the importer
 *   leaves out, as Knossos' register models accept a nil read in any state. (Lockstep
 *   JSONL can say `"value": null`, a read of the initial nil, which is judged.)
 * - cas [from, to] (cas-register only): ok only when the value is `from`, then `to`;
 *   a failed cas did not happen and is left out; an info cas may have happened.
 * The register starts as nil unless given a value. Values compare by their canonical
 * EDN text (import/edn-values.ts): imported EDN exactly, as Clojure's = does. Lockstep's
 * own JSON reads and writes wrap the value ({counter}, {value}, beside the grant's id and
 * token): only that shape, of plain JSON, is unwrapped; an EDN map never is.
 */
import type { Operation } from "../../../sim/history.js";
import { canonicalEdn, isEdnClass } from "../../import/edn-values.js";
import { hashString, type BoundModel, type InfoKey, type Model } from "../model.js";
import { OpCache } from "../op-cache.js";

const LOCKSTEP_KEYS: ReadonlySet<string> = new Set(["grantId", "token", "counter", "value"]);

function unwrap(v: unknown): unknown {
  // Only a plain object can be lockstep's wrap: an EDN value is an instance of its class, an array is a vector.
  if (v === null || typeof v !== "object" || Object.getPrototypeOf(v) !== Object.prototype) return v;
  const o = v as Record<string, unknown>;
  for (const k in o) if (!LOCKSTEP_KEYS.has(k)) return v;
  if ("value" in o) return o.value;
  if ("counter" in o) return o.counter;
  return v;
}

function keyOf(v: unknown): string {
  return canonicalEdn(v);
}

/**
 * keyOf(unwrap(v)), with lockstep's own `{value: n}` of a safe integer told apart first: the
 * usual JSONL op, read without the general walk (whose code, compiled into the loop that reads
 * every op's value, cost that loop's compile more than the loop itself).
 */
function valueKey(v: unknown): string {
  if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    const n = (v as { value?: unknown }).value;
    if (typeof n === "number" && Number.isSafeInteger(n)) {
      const keys = Object.keys(v);
      if (keys.length === 1 && keys[0] === "value") return String(n);
    }
  }
  return keyOf(unwrap(v));
}

function casArgs(op: Operation): [string, string] | undefined {
  const v = op.invoke.value;
  if (Array.isArray(v) && v.length === 2) return [keyOf(v[0]), keyOf(v[1])];
  if (v !== null && typeof v === "object" && !isEdnClass(v) && "from" in v && "to" in v) {
    const o = v as { from: unknown; to: unknown };
    return [keyOf(o.from), keyOf(o.to)];
  }
  return undefined;
}

/** The value a completed op needs the register to hold: a read's result, a cas's `from` (read once per op). */
const needed = new OpCache<string | undefined>((op) => {
  if (op.f === "read" && op.outcome === "ok") return keyOf(unwrap(op.complete?.value));
  if (op.f === "cas" && op.outcome === "ok") return casArgs(op)?.[0];
  return undefined;
});
const neededValue = (op: Operation): string | undefined => needed.get(op);

/** What a write sets the register to (read once per op). */
const written = new OpCache<string>((op) => keyOf(unwrap(op.invoke.value)));
const writtenValue = (op: Operation): string => written.get(op);

/** The values the next ops need (a handful: the ops that may go next). */
function neededValues(ops: readonly Operation[]): string[] {
  const out: string[] = [];
  for (const op of ops) {
    const v = neededValue(op);
    if (v !== undefined && !out.includes(v)) out.push(v);
  }
  return out;
}

/**
 * Info pruning for registers. An info write of v can help only right before an op that
 * needs the register to hold v (a read of v, a cas from v): anywhere else the value it
 * leaves is overwritten before anything reads it, or makes the next read fail. So it is
 * keyed by v (tried only where an op that may go next needs v), and never tried when
 * nothing in the history needs v. An info cas is not reasoned about: with one in the
 * history every info op is tried everywhere, as before.
 */
function infoWriteKeys(ops: readonly Operation[]): InfoKey[] {
  // Called once per sub-history, before its search: the previous one's ops need not stay cached.
  needed.clear();
  written.clear();
  if (ops.some((op) => op.f === "cas" && op.outcome === "info")) return ops.map(() => undefined);
  const neededSet = new Set<string>();
  for (const op of ops) {
    const v = neededValue(op);
    if (v !== undefined) neededSet.add(v);
  }
  return ops.map((op) => {
    if (op.outcome !== "info" || op.f !== "write") return undefined;
    const v = writtenValue(op);
    return neededSet.has(v) ? v : null;
  });
}

/**
 * The register's rules for one sub-history by position (Model.bind): each op's values
 * read once into arrays, so a step is two array reads, not two cache lookups.
 */
function bindRegister(ops: readonly Operation[]): BoundModel<string> {
  const n = ops.length;
  /** 0: read, 1: write, 2: cas, 3: none. */
  const kind = new Uint8Array(n);
  /** What a read or cas needs the register to hold; what a write or cas leaves in it. */
  const from: (string | undefined)[] = new Array<string | undefined>(n);
  const to: (string | undefined)[] = new Array<string | undefined>(n);
  let infoCas = false;
  for (let i = 0; i < n; i++) {
    const op = ops[i]!;
    if (op.f === "read") from[i] = op.outcome === "ok" ? valueKey(op.complete?.value) : undefined;
    else if (op.f === "write") to[i] = valueKey(op.invoke.value);
    const cas = op.f === "cas" ? casArgs(op) : undefined;
    if (cas) [from[i], to[i]] = cas;
    kind[i] = op.f === "read" ? 0 : op.f === "write" ? 1 : cas ? 2 : 3;
    if (op.f === "cas" && op.outcome === "info") infoCas = true;
  }
  // An op's need, for info pruning: an ok read's value, an ok cas's `from` (as neededValue).
  const need = (i: number): string | undefined => (ops[i]!.outcome === "ok" && kind[i]! !== 1 ? from[i] : undefined);
  const needed = new Set<string>();
  for (let i = 0; i < n; i++) if (need(i) !== undefined) needed.add(need(i)!);
  const infoKeys: InfoKey[] = new Array<InfoKey>(n);
  for (let i = 0; i < n; i++) infoKeys[i] = infoCas || ops[i]!.outcome !== "info" || kind[i] !== 1 ? undefined : needed.has(to[i]!) ? to[i] : null;
  return {
    step(value, i) {
      const k = kind[i]!;
      if (k === 0) return from[i] === value ? value : undefined;
      if (k === 1) return to[i];
      return k === 2 && from[i] === value ? to[i] : undefined;
    },
    infoKeys,
    relevantKeys(value, next) {
      const out: string[] = [];
      for (const i of next) {
        const v = need(i);
        if (v !== undefined && v !== value && !out.includes(v)) out.push(v);
      }
      return out;
    },
  };
}

/** `initialValue`: what the register holds before the first write (Knossos' registers start at nil unless given). */
export function registerModelOf(withCas: boolean, initialValue: unknown = null): Model<string> {
  return {
    name: withCas ? "cas-register" : "register",
    description: withCas ? "a register with read, write and compare-and-set" : "a register with read and write",
    admits: (op) =>
      op.outcome !== "fail" &&
      ((op.f === "read" && op.outcome === "ok" && op.complete?.value !== undefined) ||
        op.f === "write" ||
        (withCas && op.f === "cas" && casArgs(op) !== undefined)),
    init: () => keyOf(initialValue),
    step(value: string, op: Operation): string | undefined {
      switch (op.f) {
        case "read":
          return neededValue(op) === value ? value : undefined;
        case "write":
          return writtenValue(op);
        case "cas": {
          const [from, to] = casArgs(op)!;
          return value === from ? to : undefined;
        }
        default:
          return undefined;
      }
    },
    equal: (a, b) => a === b,
    hash: hashString,
    // Only ok reads are admitted; a write or a cas may change the value.
    readOnly: (op) => op.f === "read",
    infoKeys: (ops) => infoWriteKeys(ops),
    relevantKeys: (value, next) => neededValues(next).filter((v) => v !== value),
    bind: bindRegister,
    describeState: (value) => `value ${value}`,
  };
}

export const registerModel = registerModelOf(false);
export const casRegisterModel = registerModelOf(true);
