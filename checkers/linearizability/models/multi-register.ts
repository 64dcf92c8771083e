/**
 * multi-register: Knossos' `multi-register` (knossos/model.clj), several registers read
 * and written together. An op is a transaction, `:f :txn`, whose value is a vector of
 * `[f k v]` micro-ops: `:read`/`:write` as Knossos writes them (Jepsen's `:r`/`:w` too).
 * They apply in order to a map of registers: a write sets register k, a read must see
 * its value; a read whose v is nil (not known, as in every invoke) checks nothing.
 * Registers start at the initial map's values (Knossos' test: `{:x 0 :y 0}`; here
 * `--initial-value`), and any other register at nil. Registers and values compare by
 * their canonical EDN text, so :x and "x" are two registers. A completed op is judged by
 * its ok value (where the reads' results are), an info op by its invoke.
 */
import type { Operation } from "../../../sim/history.js";
import { InputError } from "../../../sim/errors.js";
import { hashString, type Model } from "../model.js";
import { canonicalEdn, EdnKeyword, EdnMap, isEdnClass } from "../../import/edn-values.js";

/** The state: the registers' canonical entries, sorted, as one string (equal maps, equal text). */
type State = string;

type MicroOp = { f: "read" | "write"; register: string; value: string | undefined };

const MICRO_OPS: Readonly<Record<string, "read" | "write">> = { read: "read", write: "write", r: "read", w: "write" };

/** A micro-op's f: a keyword (EDN) or a string (lockstep's JSON), read or write. */
function fOf(v: unknown): "read" | "write" | undefined {
  const name = v instanceof EdnKeyword ? v.name : typeof v === "string" ? v : undefined;
  return name === undefined ? undefined : MICRO_OPS[name];
}

/** A transaction's micro-ops, or undefined when the value is not one. */
export function microOps(v: unknown): MicroOp[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: MicroOp[] = [];
  for (const m of v) {
    if (!Array.isArray(m) || m.length !== 3) return undefined;
    const f = fOf(m[0]);
    if (f === undefined) return undefined;
    const known = m[2] !== null && m[2] !== undefined;
    out.push({ f, register: canonicalEdn(m[1]), value: known ? canonicalEdn(m[2]) : undefined });
  }
  return out;
}

const SEP = "\u0000";

function encode(regs: Map<string, string>): State {
  return [...regs]
    .filter(([, v]) => v !== "nil")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}${SEP}${v}`)
    .join(SEP);
}

function decode(state: State): Map<string, string> {
  const regs = new Map<string, string>();
  if (state === "") return regs;
  const parts = state.split(SEP);
  for (let i = 0; i < parts.length; i += 2) regs.set(parts[i]!, parts[i + 1]!);
  return regs;
}

/** The micro-ops of each op, read once (a step must not re-read its value). */
const txnCache = new WeakMap<Operation, MicroOp[] | undefined>();
function txnOf(op: Operation): MicroOp[] | undefined {
  if (!txnCache.has(op)) txnCache.set(op, microOps(op.outcome === "ok" ? (op.complete?.value ?? op.invoke.value) : op.invoke.value));
  return txnCache.get(op);
}

function step(state: State, op: Operation): State | undefined {
  const txn = txnOf(op);
  if (txn === undefined) return undefined;
  const regs = decode(state);
  for (const m of txn) {
    if (m.f === "write") regs.set(m.register, m.value ?? "nil");
    else if (m.value !== undefined && (regs.get(m.register) ?? "nil") !== m.value) return undefined;
  }
  return encode(regs);
}

/** The registers' values before the first transaction: a map (EDN or JSON), or nothing. */
function initialState(initialValue: unknown): State {
  if (initialValue === undefined || initialValue === null) return "";
  let entries: ReadonlyArray<readonly [unknown, unknown]>;
  if (initialValue instanceof EdnMap) entries = initialValue.entries;
  else if (typeof initialValue === "object" && !Array.isArray(initialValue) && !isEdnClass(initialValue)) entries = Object.entries(initialValue);
  else
    throw new InputError(
      "<arg>",
      "--initial-value",
      `a map of register to value for the multi-register model, such as {:x 0 :y 0}, got ${canonicalEdn(initialValue)}`,
    );
  return encode(new Map(entries.map(([k, v]) => [canonicalEdn(k), canonicalEdn(v)])));
}

function describe(state: State): string {
  return `registers {${[...decode(state)].map(([k, v]) => `${k} ${v}`).join(", ")}}`;
}

export function multiRegisterModelOf(initialValue?: unknown): Model<State> {
  const init = initialState(initialValue);
  return {
    name: "multi-register",
    description: "several registers read and written in transactions ([[:read :x v] [:write :y v]]), nil at first unless given",
    admits: (op) => op.outcome !== "fail" && op.f === "txn",
    init: () => init,
    step,
    equal: (a, b) => a === b,
    hash: hashString,
    readOnly: (op) => txnOf(op)?.every((m) => m.f === "read") === true,
    describeState: describe,
  };
}

export const multiRegisterModel: Model<State> = multiRegisterModelOf();
