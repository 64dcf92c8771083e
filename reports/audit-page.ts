import { escapeHtml, page } from "./html.js";

/** One row of the report card, as the audit engine (harness/audit) fills it. */
export interface AuditCardRow {
  attack: string;
  refused?: string;
  runs: number;
  unsafeRate: number;
  unsafeCi95: [number, number];
  challengedShare: number;
  reference: string;
  finding: string;
  /** Relative link to the counterexample's report, when one was written. */
  reportHref?: string;
}

const STYLE = `body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}.your-code{background:#fdd}.limit{background:#ffe9c2}
.none{background:#e3f6e3}.refused{color:#777}`;

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

function rowHtml(r: AuditCardRow): string {
  if (r.refused !== undefined) return `<tr class="refused"><td>${escapeHtml(r.attack)}</td><td colspan="5">refused: ${escapeHtml(r.refused)}</td></tr>`;
  const cls = r.finding === "your code" ? "your-code" : r.finding === "known limit of this backend" ? "limit" : "none";
  const link = r.reportHref ? `<a href="${escapeHtml(r.reportHref)}">counterexample</a>` : "";
  return (
    `<tr class="${cls}"><td>${escapeHtml(r.attack)}</td><td>${escapeHtml(r.finding)}</td>` +
    `<td>${pct(r.unsafeRate)} [${pct(r.unsafeCi95[0])}, ${pct(r.unsafeCi95[1])}] of ${r.runs}</td>` +
    `<td>${pct(r.challengedShare)}</td><td>${escapeHtml(r.reference)}</td><td>${link}</td></tr>`
  );
}

/** audit.html: the report card, attacks x verdict, each finding linking its counterexample report. */
export function renderAuditPage(lock: string, seeds: number, rows: readonly AuditCardRow[]): string {
  const yours = rows.filter((r) => r.finding === "your code").length;
  const body = [
    `<h1>Audit of ${escapeHtml(lock)}</h1>`,
    `<p>${rows.length} attacks x ${seeds} seeds. ${yours === 0 ? "No finding attributed to your code." : `${yours} finding(s) attributed to your code: unsafe here, safe in the reference recipe under the same schedule and seed.`}</p>`,
    "<table><tr><th>attack</th><th>finding</th><th>unsafe (95% CI)</th><th>challenged</th><th>reference</th><th></th></tr>",
    ...rows.map(rowHtml),
    "</table>",
    "<p>A known limit of this backend is unsafe in the reference recipe too: fencing tokens checked by the resource, or a consensus store, fix it; your code cannot.</p>",
  ].join("\n");
  return page({ title: `lockstep audit: ${lock}`, style: STYLE, body });
}
