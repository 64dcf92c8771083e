/** Readable renderings of operations for witnesses: what happened, who, when. */
import type { Operation } from "../../sim/history.js";
import { showValue } from "../import/edn-values.js";

export interface OpView {
  /** Index of the invoke event in the history. */
  index: number;
  process: string;
  f: string;
  lock?: string;
  outcome: Operation["outcome"];
  startUs: number;
  /** null when the outcome is unknown (the op may take effect any time later). */
  endUs: number | null;
  input?: unknown;
  output?: unknown;
  /** The same, as one line. */
  text: string;
}

function brief(v: unknown): string {
  if (v === undefined) return "";
  const s = showValue(v);
  return s.length > 80 ? s.slice(0, 77) + "..." : s;
}

/** `order`: the history's times are positions in its file (no :time), shown as #n. */
export function viewOp(op: Operation, order = false): OpView {
  const endUs = Number.isFinite(op.endUs) ? op.endUs : null;
  const input = op.invoke.value;
  const output = op.complete?.value;
  const text =
    `#${op.invoke.index} ${op.process} ${op.f}${input === undefined ? "" : " " + brief(input)}` +
    ` -> ${op.outcome}${output === undefined ? "" : " " + brief(output)}` +
    (order ? ` [#${op.startUs}, ${endUs === null ? "∞" : `#${endUs}`}]` : ` [${op.startUs}µs, ${endUs === null ? "∞" : endUs + "µs"}]`);
  return {
    index: op.invoke.index,
    process: op.process,
    f: op.f,
    ...(op.lock !== undefined ? { lock: op.lock } : {}),
    outcome: op.outcome,
    startUs: op.startUs,
    endUs,
    ...(input !== undefined ? { input } : {}),
    ...(output !== undefined ? { output } : {}),
    text,
  };
}
