import type { HistoryEvent } from "../sim/history.js";
import type { RunRecord } from "./types.js";
import { escapeHtml as e } from "./html.js";
import { buildRunView } from "./run-view.js";

const W = 220;
const LANE_H = 9;

/**
 * A timeline thumbnail of one run for the debate page: a row per client, its holds as
 * bars (red where a checker names them), faults as yellow bands behind. Static SVG,
 * every string escaped; the run's report (linked beside it) has the full timeline.
 */
export function thumbnailSvg(record: RunRecord, history: readonly HistoryEvent[]): string {
  const v = buildRunView(record, history);
  const clients = v.lanes.map((l, i) => ({ l, i })).filter((x) => x.l.kind === "client");
  const row = new Map(clients.map((c, k) => [c.i, k]));
  const h = clients.length * LANE_H + 4;
  const x = (us: number) => +((us / Math.max(1, v.endUs)) * W).toFixed(1);
  const parts: string[] = [];
  for (const f of v.faults) {
    const w = Math.max(1.5, x(f.e ?? f.s) - x(f.s));
    parts.push(`<rect class="th-fault" x="${x(f.s)}" y="0" width="${w}" height="${h}"><title>${e(f.kind)}</title></rect>`);
  }
  for (let k = 0; k < v.holds.s.length; k++) {
    const r = row.get(v.holds.lane[k]!);
    if (r === undefined) continue;
    // Under a pixel a hold would vanish; a thumbnail keeps it visible.
    const w = Math.max(1, x(v.holds.e[k]!) - x(v.holds.s[k]!));
    parts.push(`<rect class="th-hold${v.holds.bad[k] ? " bad" : ""}" x="${x(v.holds.s[k]!)}" y="${2 + r * LANE_H}" width="${w}" height="${LANE_H - 3}"/>`);
  }
  const names = clients.map((c) => c.l.id).join(", ");
  const bad = v.holds.bad.filter((b) => b === 1).length;
  const label = `timeline of ${record.scenario.name}, seed ${record.seed}: clients ${names}; ${v.holds.s.length} holds${bad ? `, ${bad} in a violation` : ""}; ${v.faults.length} fault(s)`;
  return `<svg class="thumb" role="img" aria-label="${e(label)}" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}"><title>${e(label)}</title>${parts.join("")}</svg>`;
}

export const THUMB_STYLE = String.raw`
svg.thumb { background: #f6f8fb; border: 1px solid var(--line); border-radius: 3px; display: block; }
svg.thumb .th-fault { fill: #f3d36b; opacity: .45; }
svg.thumb .th-hold { fill: #3b6fb6; }
svg.thumb .th-hold.bad { fill: #c0392b; }
`;
