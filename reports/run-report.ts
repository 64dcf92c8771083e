import type { HistoryEvent } from "../sim/history.js";
import type { RunRecord } from "./types.js";
import { dataBlock, escapeHtml, page } from "./html.js";

/**
 * The run report: one self-contained HTML file explaining one run.
 * (First cut: header, verdicts, story; the timeline follows.)
 */
export function renderRunReport(record: RunRecord, history: readonly HistoryEvent[]): string {
  const r = record;
  const verdicts = r.verdicts.results
    .map((c) => `<li class="v-${c.valid === true ? "ok" : c.valid === false ? "fail" : "unknown"}"><b>${escapeHtml(c.checker)}</b>: ${escapeHtml(c.summary)}</li>`)
    .join("");
  const body = `<header><h1>${escapeHtml(r.scenario.title)}</h1>
<p>outcome <b>${escapeHtml(r.verdicts.outcome)}</b> (expected ${escapeHtml(r.scenario.expect)}) — design ${escapeHtml(r.scenario.design)}, scenario ${escapeHtml(r.scenario.name)}, seed ${escapeHtml(r.seed)}</p>
<p>replay: <code>${escapeHtml(r.replay)}</code></p>
<ul>${verdicts}</ul></header>
<section><h2>Story</h2><p>${escapeHtml(r.scenario.story)}</p></section>
<p>${history.length} history events.</p>
${dataBlock("run-data", { scenario: r.scenario.name, events: history.length })}`;
  return page({ title: `lockstep: ${r.scenario.name} seed ${r.seed}`, style: "body{font-family:sans-serif;margin:2em}.v-fail{color:#b00}", body });
}
