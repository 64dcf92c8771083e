/**
 * multi-register: Knossos' model of several registers read and written together. An
 * op is a transaction, `:f :txn` with `:value [[:r :x nil] [:w :y 2] ...]`; its micro-
 * ops apply in order to a map of registers (all nil at first): a write sets its register,
 * a read must see its register's value. As in Knossos, a read whose value is nil (not
 * known, as in every invoke) checks nothing. A completed op is judged by its ok value
 * (where the reads' results are); an info op by its invoke (its writes may have taken
 * effect, its reads saw nothing known).
 */
import type { Operation } from "../../../sim/history.js";
import { hashString, type Model } from "../model.js";
import { keywordOrString } from "../../import/edn-values.js";

/** The state: register name -> value, as sorted JSON text (equal maps, equal text). */
type State = string;

type MicroOp = { f: "r" | "w"; register: string; value: unknown };

/** A transaction's micro-ops, or undefined when the value is not one. */
export function microOps(v: unknown): MicroOp[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: MicroOp[] = [];
  for (const m of v) {
    if (!Array.isArray(m) || m.length !== 3) return undefined;
    // A keyword or string as a name: :r and "r" are both a read here, :x and "x" one register.
    const f = keywordOrString(m[0]);
    const register = keywordOrString(m[1]) ?? JSON.stringify(m[1]);
    if (f !== "r" && f !== "w") return undefined;
    out.push({ f, register, value: m[2] });
  }
  return out;
}

const known = (v: unknown): boolean => v !== null && v !== undefined;

function step(state: State, op: Operation): State | undefined {
  const txn = microOps(op.outcome === "ok" ? (op.complete?.value ?? op.invoke.value) : op.invoke.value);
  if (txn === undefined) return undefined;
  const regs = JSON.parse(state) as Record<string, string>;
  for (const m of txn) {
    if (m.f === "w") regs[m.register] = JSON.stringify(m.value ?? null);
    else if (known(m.value) && (regs[m.register] ?? "null") !== JSON.stringify(m.value)) return undefined;
  }
  return JSON.stringify(Object.fromEntries(Object.entries(regs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

export const multiRegisterModel: Model<State> = {
  name: "multi-register",
  description: "several registers read and written in transactions ([[:r :x v] [:w :y v]]), all nil at first",
  admits: (op) => op.outcome !== "fail" && op.f === "txn",
  init: () => "{}",
  step,
  equal: (a, b) => a === b,
  hash: hashString,
  describeState: (s) => `registers ${s}`,
};
