import { BASE_STYLE } from "../reports/run-style.js";

/**
 * The playground's own markup around the report: the controls, the fault timeline and
 * its number fields, the verdict and checker lines. The run itself is drawn below, in a
 * frame, by the run report's renderer (reports/run-report.ts and reports/browser/).
 */
export function playgroundBody(): string {
  return `<header class="pg-top">
<h1>lockstep playground <small>change the fault, watch the verdict</small></h1>
<p class="explain">Everything runs in this tab: the same simulator, lock designs and checkers as <code>lockstep run</code>. Drag a fault's handles on the timeline (or focus a handle and use the arrow keys, Shift for 1 s steps), toggle fencing, change the seed: the run is simulated again and redrawn. The address bar holds the run: share it.</p>
<form class="pg-controls" onsubmit="return false">
<label>scenario <select id="pg-scenario"></select></label>
<label>design <select id="pg-design"></select></label>
<label>seed <input id="pg-seed" type="number" min="0" step="1"></label>
<label><input id="pg-fencing" type="checkbox"> the resource checks fencing tokens</label>
<label title="what must happen in a run for it to have tested the lock at all (docs/scenarios.md, challenge)">a test of the lock is <select id="pg-challenge">
<option value="overlapping-belief">two clients' beliefs overlapping</option>
<option value="waiter-served">a waiter served after a holder</option>
<option value="expiry-handover">a handover by expiry, not release</option>
<option value="waiter-waited">a waiter kept waiting a TTL</option>
</select></label>
<button type="button" id="pg-reset">back to the scenario</button>
<button type="button" id="pg-download">download as scenario file</button>
</form>
<p id="pg-claims" class="explain"></p>
</header>
<main class="pg-main">
<section class="pg-editor" aria-label="faults">
<h2>Faults <small>true time; the run is simulated again on every change</small></h2>
<div id="pg-timeline"></div>
<table class="pg-faults"><tbody id="pg-faults"></tbody></table>
<p id="pg-error" role="alert"></p>
</section>
<section class="pg-verdict" aria-live="polite">
<h2>Verdict <span id="pg-outcome" class="badge"></span></h2>
<p id="pg-challenged" class="explain"></p>
<ul id="pg-checkers"></ul>
<p class="explain">replay it: download the scenario file, then <code id="pg-replay"></code></p>
</section>
</main>
<iframe id="pg-report" title="the run's report"></iframe>`;
}

export const PLAYGROUND_STYLE =
  BASE_STYLE +
  String.raw`
.pg-top { padding: 12px 24px 4px; background: #fff; border-bottom: 1px solid var(--line); }
.pg-top h1 small { font-weight: normal; color: var(--muted); font-size: 14px; margin-left: 8px; }
.pg-controls { display: flex; flex-wrap: wrap; gap: 8px 18px; align-items: center; margin: 8px 0; }
.pg-controls select, .pg-controls input[type=number] { font: inherit; max-width: 100%; }
.pg-controls input[type=number] { width: 8em; }
.pg-main { display: flex; flex-wrap: wrap; gap: 8px 24px; padding: 8px 24px; }
.pg-editor { flex: 3 1 520px; min-width: 0; }
.pg-verdict { flex: 1 1 280px; min-width: 0; }
#pg-timeline { width: 100%; }
.pg-svg { display: block; user-select: none; touch-action: none; }
.pg-svg .tick { stroke: #eef1f5; }
.pg-svg .tick-label, .pg-svg .ttl-label { font-size: 11px; fill: var(--muted); text-anchor: middle; }
.pg-svg .ttl-label { text-anchor: end; }
.pg-svg .row-label { font-size: 12px; font-weight: 600; fill: var(--fg); }
.pg-svg .never { font-size: 12px; fill: var(--muted); }
.pg-svg .bar { fill: #fff3b0; stroke: #d4a300; }
.pg-svg .k-crash .bar { fill: #f3d0d0; stroke: #b33; }
.pg-svg .k-partition .bar, .pg-svg .k-isolate .bar, .pg-svg .k-delay .bar, .pg-svg .k-loss .bar, .pg-svg .k-cut .bar { fill: #dfe8f6; stroke: var(--accent); }
.pg-svg .jump { stroke: #7b5ea7; stroke-width: 3; }
.pg-svg .handle { fill: #fff; stroke: var(--fg); stroke-width: 1.5; cursor: ew-resize; }
.pg-svg .handle:focus { outline: none; stroke: var(--accent); stroke-width: 3; fill: #eef3fb; }
table.pg-faults { border-collapse: collapse; margin-top: 4px; }
table.pg-faults th { text-align: left; padding: 2px 12px 2px 0; white-space: nowrap; }
table.pg-faults td { padding: 2px 12px 2px 0; }
table.pg-faults input { width: 7em; font: inherit; }
#pg-error { color: var(--bad); font-weight: 600; min-height: 1em; }
#pg-checkers { list-style: none; padding: 0; margin: 6px 0; }
#pg-checkers li { padding: 2px 0; }
#pg-checkers li.fail { color: var(--bad); }
#pg-checkers li.ok { color: var(--ok); }
#pg-report { display: block; width: 100%; min-height: 600px; border: 0; border-top: 1px solid var(--line); }
body[data-previewing] #pg-report { opacity: .45; }
@media (max-width: 700px) { .pg-top, .pg-main { padding-left: 10px; padding-right: 10px; } table.pg-faults tr { display: flex; flex-wrap: wrap; } }
`;
