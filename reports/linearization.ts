import { escapeHtml as e } from "./html.js";
import type { RunRecord } from "./types.js";
import { MODEL_FAMILY, isModelName } from "../checkers/linearizability/models/index.js";

/**
 * The linearizability failure drawn, as Porcupine's visualizer does: the operations of
 * the longest linearizable prefix (its last ones) on a row per client, numbered in the
 * order they linearize, the model's state after them, and the operation that cannot
 * follow, in red. Static SVG rendered here (every string escaped), with a "show on
 * the timeline" button the page's script wires like the other checkers' links.
 */
interface OpLike {
  index: number;
  process: string;
  f: string;
  outcome: string;
  startUs: number;
  endUs: number | null;
  input?: unknown;
  output?: unknown;
}
interface Witness {
  model: string;
  lock: string;
  prefixLength: number;
  prefixTail: OpLike[];
  state: string;
  cannotFollow: OpLike[];
}

export interface LinearizationView {
  witness: Witness;
  /** The window to show on the timeline: the last prefix ops and the stuck one, µs. */
  spanUs: [number, number];
  /** The history has no times: its "µs" are positions in the file, said as #n. */
  order?: boolean;
}

export function linearizationOf(record: RunRecord): LinearizationView | undefined {
  const r = record.verdicts.results.find((x) => x.checker === "linearizability" && x.valid === false);
  const w = r?.witness as Witness | undefined;
  if (!w || !Array.isArray(w.prefixTail) || !Array.isArray(w.cannotFollow)) return undefined;
  const near = [...w.prefixTail.slice(-2), ...w.cannotFollow];
  const s = Math.min(...near.map((o) => o.startUs));
  const end = Math.max(...near.map((o) => o.endUs ?? o.startUs));
  return { witness: w, spanUs: [s, Math.max(end, s + 1)], ...(record.meta.timeIsOrder ? { order: true } : {}) };
}

export const isRegisterModel = (model: string): boolean => isModelName(model) && MODEL_FAMILY[model] === "register";

/**
 * What the witness is about, as a noun phrase: "lock order:123", "register x", or "the
 * register" for a register history whose ops name none (the importer calls it "lock").
 */
export function partName(w: Pick<Witness, "model" | "lock">): string {
  if (!isRegisterModel(w.model)) return `lock ${w.lock}`;
  const noun = w.model === "multi-register" ? "registers" : "register";
  return w.lock === "lock" ? `the ${noun}` : `${noun} ${w.lock}`;
}

/** One sentence for "What went wrong", in words. */
export function linearizationSentence(v: LinearizationView): string {
  const w = v.witness;
  const stuck = w.cannotFollow[0];
  const part = partName(w);
  const verb = w.model === "multi-register" ? "are" : "is";
  return `${part} ${verb} not linearizable under the ${w.model} model: the longest order that explains what clients saw has ${w.prefixLength} operations and leaves the ${isRegisterModel(w.model) ? "state" : "lock"} ${w.state}; ${stuck ? `${opWords(stuck, w.model)} cannot follow it` : "no operation can follow it"}.`;
}

/** A value as the history wrote it: numbers and strings bare, the rest as JSON. */
export function valueWords(v: unknown): string {
  if (v === null || v === undefined) return "nil";
  if (typeof v === "number" || typeof v === "string" || typeof v === "bigint") return String(v);
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
}

/** A register operation in words: "2 cas 0 → 3 → ok", "1 read → 0", "0 write 5 → outcome unknown". */
function registerOpWords(op: OpLike): string {
  return `${op.process} ${registerOpText(op)}`;
}

/** A register operation's own words, without its process: "cas 0 → 3 → ok". */
export function registerOpText(op: Pick<OpLike, "f" | "outcome" | "input" | "output">): string {
  const i = op.input;
  let what = op.f;
  if (op.f === "cas" && Array.isArray(i) && i.length === 2) what = `cas ${valueWords(i[0])} → ${valueWords(i[1])}`;
  else if (op.f !== "read" && i !== undefined && i !== null) what = `${op.f} ${valueWords(i)}`;
  let result: string;
  if (op.outcome === "info") result = "outcome unknown";
  else if (op.outcome === "fail") result = "failed";
  else if (op.f === "read" || op.f === "txn") result = valueWords(op.output);
  else result = "ok";
  return `${what} → ${result}`;
}

/**
 * An operation in words: "c1 write counter = 1 under c1#1 → ok"; for a register model,
 * its values ("2 cas 0 → 3 → ok").
 */
export function opWords(op: OpLike, model = ""): string {
  if (isRegisterModel(model)) return registerOpWords(op);
  const i = (op.input ?? {}) as Record<string, unknown>;
  const o = (op.output ?? {}) as Record<string, unknown>;
  const grant = typeof i.grantId === "string" ? ` under ${i.grantId}` : "";
  const tok = typeof i.token === "number" ? ` (token ${i.token})` : "";
  let what: string;
  switch (op.f) {
    case "acquire":
      what = `acquire${typeof i.ttlMs === "number" ? ` (TTL ${i.ttlMs} ms)` : ""}`;
      break;
    case "read":
      what = `read${grant}${tok}`;
      break;
    case "write":
      what = `write counter = ${String(i.counter ?? "?")}${grant}${tok}`;
      break;
    case "release":
      what = `release${typeof i.grantId === "string" ? ` ${i.grantId}` : ""}`;
      break;
    default:
      what = `${op.f}${grant}`;
  }
  let result: string;
  if (op.outcome === "info") result = "outcome unknown";
  else if (op.outcome === "fail") result = `failed${typeof o.reason === "string" ? ` (${o.reason})` : ""}`;
  else if (op.f === "acquire")
    result = `granted${typeof o.grantId === "string" ? ` ${o.grantId}` : ""}${typeof o.token === "number" ? `, token ${o.token}` : ""}`;
  else if (op.f === "read") result = `counter ${String(o.counter ?? "?")}`;
  else if (op.f === "release") result = o.released === false ? "not released (key already gone)" : "released";
  else result = "ok";
  return `${op.process} ${what} → ${result}`;
}

const ROW_H = 30;
const ML = 70;
const W = 860;

export function renderLinearization(v: LinearizationView): string {
  const w = v.witness;
  const fmtS = v.order ? (us: number) => `#${us}` : fmtSeconds;
  const ops = [
    ...w.prefixTail.map((op, j) => ({ op, n: w.prefixLength - w.prefixTail.length + j + 1, stuck: false })),
    ...w.cannotFollow.map((op) => ({ op, n: 0, stuck: true })),
  ];
  const procs = [...new Set(ops.map((x) => x.op.process))].sort();
  const t0 = Math.min(...ops.map((x) => x.op.startUs));
  const t1 = Math.max(...ops.map((x) => x.op.endUs ?? x.op.startUs)) + 1;
  // Real-time order is what linearizability reads, not durations: every invoke and reply
  // gets its own evenly spaced position, so a 1 ms op beside a 15 s one is still seen.
  const times = [...new Set(ops.flatMap((x) => (x.op.endUs === null ? [x.op.startUs] : [x.op.startUs, x.op.endUs])))].sort((a, b) => a - b);
  const rank = new Map(times.map((t, i) => [t, i]));
  const step = (W - ML - 30) / Math.max(1, times.length - 1);
  const X = (t: number) => ML + (rank.get(t) ?? times.length) * step;
  const H = procs.length * ROW_H + 34;
  const rows = procs
    .map(
      (p, r) =>
        `<text class="lin-proc" x="${ML - 8}" y="${24 + r * ROW_H + 15}" text-anchor="end">${e(p)}</text><line x1="${ML}" x2="${W - 10}" y1="${24 + r * ROW_H + ROW_H / 2}" y2="${24 + r * ROW_H + ROW_H / 2}" class="lin-row"/>`,
    )
    .join("");
  const bars = ops
    .map(({ op, n, stuck }) => {
      const r = procs.indexOf(op.process);
      const y = 24 + r * ROW_H + 5;
      const x0 = X(op.startUs);
      const open = op.endUs === null;
      const x1 = open ? W - 12 : Math.max(x0 + 6, X(op.endUs!));
      const long = stuck ? `✗ ${op.f}` : `${n}. ${op.f}`;
      const label = x1 - x0 > long.length * 6.4 ? long : stuck ? "✗" : String(n);
      const title = `${stuck ? "cannot follow" : `linearized ${n}${ordinal(n)}`}: ${opWords(op, w.model)} — invoked ${fmtS(op.startUs)}, ${op.endUs === null ? "no reply" : `returned ${fmtS(op.endUs)}`} (history #${op.index})`;
      return `<g class="lin-op${stuck ? " stuck" : ""}" data-index="${op.index}"><title>${e(title)}</title><rect x="${x0.toFixed(1)}" y="${y}" width="${(x1 - x0).toFixed(1)}" height="${ROW_H - 10}" rx="3"${open ? ' stroke-dasharray="4,3"' : ""}/><text x="${(x0 + 3).toFixed(1)}" y="${y + 14}">${e(label)}</text></g>`;
    })
    .join("");
  const axis = `<text class="lin-axis" x="${ML}" y="${H - 4}">${e(fmtS(t0))}</text><text class="lin-axis" x="${W - 10}" y="${H - 4}" text-anchor="end">${e(fmtS(t1 - 1))}</text>`;
  const shownFrom = w.prefixLength - w.prefixTail.length + 1;
  const list = ops
    .map(
      ({ op, n, stuck }) =>
        `<li class="${stuck ? "stuck" : ""}" value="${stuck ? w.prefixLength + 1 : n}">${stuck ? "<b>cannot follow:</b> " : ""}${e(opWords(op, w.model))} <span class="lin-t">[${e(fmtS(op.startUs))} – ${e(op.endUs === null ? "no reply" : fmtS(op.endUs))}]</span></li>`,
    )
    .join("");
  return `<section class="linearization" id="linearization">
<h2>The linearizability failure <small>${e(partName(w))}, ${e(w.model)} model</small> <button type="button" class="linklike" data-show="span:${v.spanUs[0]}-${v.spanUs[1]}">show on the timeline</button></h2>
<p class="explain">No order of the operations on ${e(partName(w))} agrees with both their real-time order and the model. The longest order that does has <b>${w.prefixLength}</b> operations${w.prefixLength > w.prefixTail.length ? ` (the last ${w.prefixTail.length} shown, from the ${shownFrom}${ordinal(shownFrom)})` : ""}, numbered as they linearize; after them ${isRegisterModel(w.model) ? "the state" : "the lock"} is <b>${e(w.state)}</b>, and the red operation cannot come next. Bars run from invoke to reply, placed by the order of those events (not to scale); a dashed bar never got a reply. Hover a bar for its times.</p>
<div class="lin-frame"><svg class="lin-svg" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="the longest linearizable prefix and the operation that cannot follow">${rows}${bars}${axis}</svg></div>
<p class="lin-state">model state after the prefix: <b>${e(w.state)}</b></p>
<ol class="lin-list">${list}</ol>
</section>`;
}

function ordinal(n: number): string {
  const t = n % 100;
  if (t >= 11 && t <= 13) return "th";
  return ["th", "st", "nd", "rd"][n % 10] ?? "th";
}

function fmtSeconds(us: number): string {
  return `${(us / 1e6).toFixed(6).replace(/0{1,3}$/, "")} s`;
}

export const LINEARIZATION_STYLE = String.raw`
section.linearization { margin: 10px 24px 0; background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--bad); border-radius: 6px; padding: 10px 14px; }
/* On a narrow screen the drawing scrolls in its frame rather than shrinking its labels past reading. */
.lin-frame { overflow-x: auto; }
.lin-svg { max-width: 900px; min-width: 700px; display: block; }
.lin-proc { font-size: 12px; font-weight: 600; fill: var(--fg); }
.lin-row { stroke: #e3e7ec; }
.lin-op rect { fill: #d8ecd9; stroke: #2e7d32; stroke-width: 1.2; }
.lin-op text { font-size: 10.5px; fill: #1d5e20; font-weight: 600; }
.lin-op.stuck rect { fill: #fbdcdc; stroke: var(--bad); stroke-width: 2; }
.lin-op.stuck text { fill: var(--bad); }
.lin-axis { font-size: 11px; fill: var(--muted); }
.lin-state { margin: 4px 0; }
.lin-list { margin: 4px 0; font-size: 13px; }
.lin-list li.stuck { color: var(--bad); }
.lin-t { color: var(--muted); font: 12px ui-monospace, Menlo, Consolas, monospace; }
`;
