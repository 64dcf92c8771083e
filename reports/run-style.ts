/** The stylesheet shared by lockstep's pages (run report, comparison, debate). */
export const BASE_STYLE = String.raw`
:root { --fg: #1d2430; --muted: #5f6b7a; --line: #dde2e8; --bad: #d62728; --ok: #2e7d32; --warn: #e07b00; --accent: #3b6fb6; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #fbfcfd; }
h1 { font-size: 22px; margin: 0; }
h2 { font-size: 16px; margin: 0 0 8px; }
h2 small { font-weight: normal; color: var(--muted); font-size: 13px; margin-left: 6px; }
h3 { font-size: 14px; margin: 14px 0 4px; }
code { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #eef1f5; padding: 2px 6px; border-radius: 4px; }
button { font: inherit; cursor: pointer; border: 1px solid var(--line); background: #fff; border-radius: 4px; padding: 2px 9px; }
button:hover { background: #eef3fb; }
button.linklike { border: 0; background: none; color: var(--accent); text-decoration: underline; padding: 0 2px; }
.explain { color: var(--muted); margin: 4px 0 8px; max-width: 80ch; }
footer { color: var(--muted); font-size: 12px; padding: 12px 24px 24px; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 12px; font-weight: 600; font-size: 13px; text-transform: uppercase; letter-spacing: .03em; color: #fff; background: #777; }
.outcome-safe { background: var(--ok); }
.outcome-unsafe { background: var(--bad); }
.outcome-unsafe-but-fenced { background: var(--warn); }
.outcome-liveness-loss { background: #8e6c00; }
.outcome-unknown { background: #777; }
.outcome-not-challenged { background: #5b6b82; }
.from-audit { margin: 4px 0; font-size: 14px; padding: 4px 8px; background: #fdecec; border-left: 4px solid #c62828; border-radius: 3px; }
.challenge { margin: 4px 0; font-size: 14px; } .challenge.unmet { color: #5b6b82; }
.story-note { font-style: italic; color: #5b6b82; }
.run-notes { margin: 4px 0 6px; padding-left: 18px; color: #7a4b00; font-size: 13px; }
`;

export const RUN_STYLE =
  BASE_STYLE +
  String.raw`
header.top { padding: 12px 24px 8px; background: #fff; border-bottom: 1px solid var(--line); }
.title-row { display: flex; align-items: center; gap: 12px; flex-wrap: wrap; }
.expect { color: var(--muted); }
.expect.unmet { color: var(--bad); font-weight: 600; }
dl.facts { display: flex; flex-wrap: wrap; gap: 2px 22px; margin: 6px 0; }
dl.facts div { display: flex; gap: 6px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; font-weight: 600; }
.replay { margin: 4px 0 4px; }
.replay span { color: var(--muted); }
table.verdicts { border-collapse: collapse; margin-top: 6px; }
table.verdicts caption { text-align: left; color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .05em; }
table.verdicts td, table.verdicts th { padding: 3px 10px 3px 0; text-align: left; vertical-align: top; }
table.verdicts th { white-space: nowrap; }
@media (max-width: 600px) {
  /* A phone: each checker's mark and name on a line, its sentence under them at full width. */
  table.verdicts, table.verdicts tbody, table.verdicts tr { display: block; }
  table.verdicts tr { margin-bottom: 6px; }
  table.verdicts td:last-child { display: block; padding-left: 12px; overflow-wrap: anywhere; }
}
.v-mark { font-weight: 700; white-space: nowrap; }
.v-ok .v-mark { color: var(--ok); }
.v-fail .v-mark { color: var(--bad); }
.v-unknown .v-mark, .v-skip .v-mark { color: var(--muted); }
.findings { margin: 10px 24px 0; padding: 6px 16px; border: 2px solid var(--bad); border-radius: 6px; background: #fff5f5; }
.findings h2 { color: var(--bad); }
.findings ol, .findings ul { margin: 0; padding-left: 20px; }
.findings li { margin: 3px 0; }
.findings .more { margin: 4px 0 2px 20px; color: #8b1414; }
.ck { display: inline-block; font-size: 12px; font-weight: 600; color: #fff; background: var(--bad); border-radius: 3px; padding: 0 5px; margin-right: 4px; }
main.grid { display: grid; grid-template-columns: minmax(0, 1fr) 340px; gap: 18px; padding: 14px 24px; align-items: start; }
.charts section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 12px 8px; margin-bottom: 14px; }
aside.story { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 14px; position: sticky; top: 10px; max-height: calc(100vh - 20px); overflow: auto; }
.story-text { margin: 0 0 6px; white-space: pre-line; } /* a counterexample's story is a list, one step a line */
#steps { padding-left: 0; list-style: none; margin: 0; }
#steps li { padding: 5px 8px; border-left: 3px solid var(--line); margin: 2px 0; cursor: pointer; border-radius: 0 4px 4px 0; }
#steps li:hover, #steps li:focus { background: #eef3fb; outline: none; }
#steps li.active { background: #e1ecfb; border-left-color: var(--accent); }
#steps li.tone-fault { border-left-color: #e0b100; }
#steps li.tone-bad { border-left-color: var(--bad); color: #8b1414; }
#steps .t { font: 12px ui-monospace, Menlo, Consolas, monospace; color: var(--muted); margin-right: 4px; }
.toolbar { display: flex; gap: 6px; align-items: center; margin-bottom: 6px; flex-wrap: wrap; }
.toolbar button { min-width: 30px; }
#zoom-state { font: 12px ui-monospace, Menlo, Consolas, monospace; color: var(--muted); margin-left: 6px; }
.hint { color: var(--muted); font-size: 12px; margin-left: auto; }
.stack { position: relative; width: 100%; }
#timeline { overflow-x: auto; overflow-y: hidden; }
body.measuring .stack > *, body.measuring .charts svg, body.measuring .charts canvas { display: none; }
.stack .layer { position: absolute; left: 0; top: 0; }
.overlay { cursor: grab; }
.overlay:active { cursor: grabbing; }
.axis text { font-size: 11px; fill: var(--muted); }
.axis path, .axis line { stroke: #b8c0c9; }
.lane-name { font-size: 12px; font-weight: 600; fill: var(--fg); }
.lane-kind { font-size: 9.5px; fill: var(--muted); }
.fault-label { font-size: 11px; font-weight: 600; pointer-events: none; }
.fault-label.dark { fill: #5c4700; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.fault-clock-jump .fault-label.dark { fill: #6c2f8a; }
.note .fault-label.dark { fill: #6c2f8a; }
.fault-label.net-out { fill: #2b4f86; }
.vlabel { font-size: 11px; font-weight: 700; fill: var(--bad); paint-order: stroke; stroke: #fff; stroke-width: 3px; pointer-events: none; }
.mark { cursor: pointer; }
rect.hi { fill: none; stroke: #111; stroke-width: 2; stroke-dasharray: 5,3; pointer-events: none; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 6px 0 2px; font-size: 12px; color: var(--muted); }
.legend .key { display: inline-flex; align-items: center; gap: 5px; }
.legend .key i { display: inline-block; width: 14px; height: 3px; }
.sw { display: inline-block; width: 18px; height: 10px; vertical-align: -1px; margin-right: 4px; font-style: normal; text-align: center; line-height: 10px; font-weight: 700; }
.sw.hold { background: #3b6fb6; }
.sw.lease { background: linear-gradient(#3b6fb6 0 70%, #1d2430 70%); }
.sw.wait { height: 2px; background: #9aa3ad; vertical-align: 3px; }
.sw.lapsed { background: linear-gradient(#d81b8c 0 30%, #3b6fb6 30%); }
.sw.n-set { width: 8px; height: 8px; background: #2e7d32; transform: rotate(45deg) scale(.8); }
.sw.n-expiry { width: 12px; height: 10px; background: #c0392b; clip-path: polygon(0 0, 100% 0, 50% 100%); }
.sw.n-foreign { width: 8px; height: 8px; border: 2px solid #d62728; background: none; transform: rotate(45deg) scale(.8); }
.sw.n-delete { width: auto; height: auto; background: none; color: #d62728; font-style: normal; font-weight: bold; font-size: 15px; line-height: 10px; }
.sw.n-decision { width: 10px; height: 10px; background: #8e44ad; transform: rotate(45deg) scale(.8); }
.sw.n-role { width: 12px; height: 10px; background: #1f5fa8; clip-path: polygon(50% 0, 100% 100%, 0 100%); }
.legend.servers { margin-top: 0; }
.verdict-line { margin: 4px 0 0; font-size: 13px; }
.verdict-line .v-fail .v-mark { color: var(--bad); }
.verdict-line .v-ok .v-mark { color: var(--ok); }
.verdict-line .v-unknown .v-mark, .verdict-line .v-skip .v-mark { color: var(--muted); }
section.checkers { margin: 10px 24px 8px; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; }
#clocks.collapsed { color: var(--muted); font-size: 13px; }
#steps li.tone-server { border-left-color: #8e44ad; }
.note-label { font-size: 10.5px; font-weight: 600; }
.sw.attempt { height: 2px; background: var(--warn); vertical-align: 3px; }
.sw.write-ok { width: 3px; background: var(--ok); }
.sw.write-no { width: 12px; color: var(--warn); }
.sw.pause { background: repeating-linear-gradient(45deg, #fff4cc 0 3px, #e0b100 3px 5px); }
.sw.crash { background: #c9c9c9; }
.sw.jump { width: 10px; height: 10px; background: #8e44ad; transform: rotate(45deg) scale(.8); }
.sw.bad { background: rgba(214,39,40,.3); border: 1.5px solid var(--bad); }
.ql line { stroke-width: 1.2; stroke-opacity: .55; }
.ql text { font-size: 11px; font-weight: 600; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.ql.target line { stroke: var(--ok); stroke-dasharray: 6,4; }
.ql.target text { fill: var(--ok); }
.ql.p50 line { stroke: var(--accent); }
.ql.p50 text { fill: var(--accent); }
.ql.p99 line { stroke: #7b5ea7; }
.ql.p99 text { fill: #7b5ea7; }
b.over { color: var(--warn); }
b.under { color: var(--ok); }
#tooltip { position: fixed; display: none; z-index: 10; max-width: 430px; background: #fff; border: 1px solid #b8c0c9; border-radius: 6px; box-shadow: 0 4px 14px rgba(0,0,0,.14); padding: 8px 10px; font-size: 12.5px; pointer-events: none; }
#tooltip.bad { border-color: var(--bad); }
#tooltip .tt-title { font-weight: 700; margin-bottom: 4px; }
#tooltip.bad .tt-title { color: var(--bad); }
#tooltip table { border-collapse: collapse; }
#tooltip th { text-align: left; color: var(--muted); font-weight: normal; padding: 1px 10px 1px 0; white-space: nowrap; vertical-align: top; }
#tooltip td { padding: 1px 0; }
#tooltip .tt-text { margin-top: 5px; max-width: 400px; }
#tooltip .tt-also { margin-top: 5px; padding-top: 4px; border-top: 1px solid var(--line); color: #7a5c00; max-width: 400px; }
#tooltip .tt-foot { margin-top: 4px; color: var(--bad); font-weight: 600; }
@media (max-width: 1100px) { main.grid { grid-template-columns: 1fr; } aside.story { position: static; max-height: none; } }
`;
