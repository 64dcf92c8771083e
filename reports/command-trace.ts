import { escapeHtml as e } from "./html.js";
import type { TraceRecord } from "../sim/simulation.js";

/** Rows shown per node; the rest are in trace.jsonl beside the report. */
export const TRACE_ROWS_PER_NODE_MAX = 2000;

interface CommandData {
  from?: string;
  command?: string;
  reply?: string;
}

/**
 * Every command each Redis node executed (run --trace), one folded table per node: the
 * detail behind the lanes' notes, for when a note is not enough. Static HTML, every
 * string escaped; empty when the run was not traced.
 */
export function renderCommandTrace(trace: readonly TraceRecord[] | undefined): string {
  if (!trace || trace.length === 0) return "";
  const byNode = new Map<string, TraceRecord[]>();
  for (const r of trace) {
    if (r.kind !== "redis-command") continue;
    const list = byNode.get(r.process) ?? [];
    list.push(r);
    byNode.set(r.process, list);
  }
  if (byNode.size === 0) return "";
  const tables = [...byNode]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([node, rows]) => {
      const shown = rows.slice(0, TRACE_ROWS_PER_NODE_MAX);
      const more = rows.length - shown.length;
      const body = shown
        .map((r) => {
          const d = (r.data ?? {}) as CommandData;
          return `<tr><td class="t">${e((r.timeUs / 1e6).toFixed(6))}</td><td>${e(d.from ?? "—")}</td><td><code>${e(d.command ?? "")}</code></td><td><code>${e(d.reply ?? "")}</code></td></tr>`;
        })
        .join("");
      return `<details class="trace-node" data-node="${e(node)}"><summary>${e(node)}: ${rows.length} command${rows.length === 1 ? "" : "s"}${more > 0 ? ` (the first ${shown.length} shown; all in trace.jsonl)` : ""}</summary>
<table class="trace"><thead><tr><th>true time (s)</th><th>from</th><th>command</th><th>reply</th></tr></thead><tbody>${body}</tbody></table></details>`;
    })
    .join("\n");
  return `<section class="command-trace" id="command-trace">
<h2>Commands each node executed <small>run with --trace; folded, open a node to read them</small></h2>
${tables}
</section>`;
}

export const COMMAND_TRACE_STYLE = `
.command-trace { margin: 16px; }
.command-trace details { margin: 6px 0; }
.command-trace summary { cursor: pointer; font-weight: 600; }
.command-trace table.trace { border-collapse: collapse; font-size: 12px; margin-top: 4px; }
.command-trace table.trace td, .command-trace table.trace th { padding: 2px 8px; text-align: left; border-bottom: 1px solid #eee; }
.command-trace td.t { font-variant-numeric: tabular-nums; color: #555; }
`;

/** trace.jsonl: one record per line. */
export function traceToJsonl(trace: readonly TraceRecord[]): string {
  return trace.map((r) => JSON.stringify(r)).join("\n") + (trace.length > 0 ? "\n" : "");
}
