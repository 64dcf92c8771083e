import { COMMAND_TRACE_STYLE, renderCommandTrace } from "./command-trace.js";
import type { TraceRecord } from "../sim/simulation.js";
import type { HistoryEvent } from "../sim/history.js";
import type { RunRecord } from "./types.js";
import { dataBlock, escapeHtml, page } from "./html.js";
import { buildRunView, fmtMs, type RunView } from "./run-view.js";
import { browserScript } from "./bundle.js";
import { RUN_STYLE } from "./run-style.js";
import { packView } from "./pack.js";
import { LINEARIZATION_STYLE, linearizationOf, linearizationSentence, renderLinearization, type LinearizationView } from "./linearization.js";

/**
 * The run report: one self-contained HTML file (d3 inlined, no network) that explains
 * one run — verdicts and the replay command up top, then the timeline with the story
 * beside it, the clocks and the acquire latency. The static parts are rendered here
 * (escaped); the charts are drawn in the browser from the RunView embedded as JSON.
 */
/** The run's page; `trace` (run --trace) adds every command each node executed, folded. */
export function renderRunReport(record: RunRecord, history: readonly HistoryEvent[], trace?: readonly TraceRecord[]): string {
  const view = buildRunView(record, history, trace);
  return renderRunReportFromView(record, view, trace);
}

export function renderRunReportFromView(record: RunRecord, view: RunView, trace?: readonly TraceRecord[]): string {
  const r = record;
  const e = escapeHtml;
  const lin = linearizationOf(record);
  const outcome = r.verdicts.outcome;
  const verdictRows = r.verdicts.results
    .map((c) => {
      const { cls, word } = verdictMarkOf(c);
      return `<tr class="v-${cls}"><td class="v-mark">${word}</td><th>${e(c.checker)}</th><td>${e(c.summary)}</td></tr>`;
    })
    .join("\n");

  const findings = findingsSection(view, lin);

  const body = `${runHeader(r)}
${findings}
<main class="grid">
<div class="charts">
<section id="timeline-section">
<h2>Timeline <small>true time, as only a simulator knows it</small></h2>
<div class="toolbar"><button type="button" id="zoom-in" title="zoom in">+</button><button type="button" id="zoom-out" title="zoom out">−</button><button type="button" id="zoom-reset">whole run</button><span id="zoom-state"></span><span class="hint">scroll to zoom, drag to pan, hover any mark for details</span></div>
${tailNote(r)}
<div id="timeline" class="stack"></div>
${TIMELINE_LEGENDS}
${omittedNotes(view)}
</section>
<section id="clocks-section">
<h2>Clocks <small>each process's wall-clock offset from true time</small></h2>
<div id="clocks"></div>
<div id="clocks-legend" class="legend"></div>
<p class="explain">A lease is only as good as the clocks that time it: a line leaving 0 is a clock that jumped or drifts. Dashed purple lines are clock jumps.</p>
</section>
${latencySection(view)}
</div>
${storyAside(r, view)}
</main>
${lin ? renderLinearization(lin) : ""}
<section class="checkers" id="checkers">
<table class="verdicts"><caption>Checkers</caption>${verdictRows}</table>
</section>
${renderCommandTrace(trace)}
<footer>lockstep ${e(r.lockstep.version)} · ${view.holds.s.length} holds, ${view.writes.t.length} writes, ${view.faults.length} faults · every time is simulated true time from the start of the run</footer>
<div id="tooltip" role="tooltip"></div>
${dataBlock("run-data", packView(view))}`;
  return page({
    title: `lockstep: ${r.scenario.name} seed ${r.seed} — ${outcome}`,
    style: RUN_STYLE + LINEARIZATION_STYLE + COMMAND_TRACE_STYLE,
    body,
    scripts: [browserScript("run")],
  });
}

/** The story beside the timeline: the scenario's story, then what happened step by step. */
function storyAside(r: RunRecord, view: RunView): string {
  const e = escapeHtml;
  const steps = view.steps
    .map(
      (s) =>
        `<li class="tone-${s.tone}" data-ref="${s.ref.kind}:${s.ref.i}" tabindex="0"><span class="t">${e(view.timeIsOrder ? `#${s.t}` : fmtSeconds(s.t))}</span> ${e(s.text)}</li>`,
    )
    .join("\n");

  return `<aside class="story">
<h2>The story</h2>
${r.verdicts.challenge?.challenged === false ? `<p class="story-note">This run did not get where the story goes: ${e(r.verdicts.challenge.why)}. The story is what the scenario aims at.</p>` : ""}
<p class="story-text">${e(r.scenario.story)}</p>
<h3>What happened, step by step</h3>
<p class="explain">Hover a step to find its mark on the timeline; click it to zoom there.</p>
<ol id="steps">${steps || `<li>${e(noSteps(r))}</li>`}</ol>
</aside>`;
}

/** The page's top: title, outcome, the finding and challenge lines, facts, replay command, verdicts. */
function runHeader(r: RunRecord): string {
  const e = escapeHtml;
  const outcome = r.verdicts.outcome;
  const facts = factsOf(r);
  return `<header class="top">
<div class="title-row">
<h1>${e(r.scenario.title)}</h1>
<span class="badge outcome-${e(outcome)}">${e(outcome.replace(/-/g, " "))}</span>
<span class="expect ${r.expectationMet ? "met" : "unmet"}">${r.expectationMet ? "as the scenario expects" : `the scenario expects <b>${e(r.scenario.expect)}</b>`}</span>
</div>
${findingLine(r)}${challengeLine(r)}
${notesLine(r)}
<dl class="facts">${facts.map(([k, v]) => `<div><dt>${e(k)}</dt><dd>${e(v)}</dd></div>`).join("")}</dl>
<div class="replay"><span>replay this run:</span> <code id="replay-command">${e(r.replay)}</code> <button type="button" id="copy-replay">copy</button></div>
<p class="verdict-line">checkers: ${r.verdicts.results
    .map((c) => {
      const { cls, word } = verdictMarkOf(c);
      return `<span class="v-${cls}"><b>${e(c.checker)}</b> <span class="v-mark">${word}</span></span>`;
    })
    .join(" · ")} <a href="#checkers">(each checker's sentence)</a></p>
</header>`;
}

/** A long run's report draws its last events only; the verdicts judged all of it (online). */
function tailNote(r: RunRecord): string {
  const t = r.meta.historyTail;
  if (!t) return "";
  return `<p class="story-note">A long run, checked online as it went: the checkers judged all ${fmtMs(r.meta.durationMs)} of it; this timeline and the steps show its last ${t.events} events, from ${fmtSeconds(t.fromUs)}.</p>`;
}

/** The run's facts line: design, scenario, seed, time, processes, tokens, file. */
function factsOf(r: RunRecord): Array<[string, string]> {
  return [
    ["design", r.scenario.design],
    ["scenario", r.scenario.name],
    ["seed", String(r.seed)],
    timeFact(r),
    ["clients", String(r.meta.clientIds.length)],
    ["servers", r.meta.serverIds.join(", ") || "—"],
    ["fencing tokens", r.meta.fencingTokens ? (r.scenario.workload.fencing ? "issued and checked by the resource" : "issued, not checked") : "none"],
    ["file", r.scenario.file],
  ];
}

/** A checker's verdict as a class and a word: passed, not checked, FAILED, undecided. */
function verdictMarkOf(c: RunRecord["verdicts"]["results"][number]): { cls: string; word: string } {
  const cls = c.valid === true ? (c.skipped ? "skip" : "ok") : c.valid === false ? "fail" : "unknown";
  const word = c.valid === true ? (c.skipped ? "not checked" : "passed") : c.valid === false ? "FAILED" : "undecided";
  return { cls, word };
}

/** "What went wrong": a few violations per checker with their timeline links, then the other failing checkers. */
function findingsSection(view: RunView, lin: LinearizationView | undefined): string {
  const e = escapeHtml;
  // At most a few sentences per checker: a long stale hold can overlap dozens of others.
  const shown = view.violations
    .map((v, i) => ({ v, i }))
    .filter(({ v, i }) => view.violations.slice(0, i).filter((w) => w.checker === v.checker).length < FINDINGS_PER_CHECKER);
  const hidden = view.violations.length - shown.length;
  return view.violations.length
    ? `<section class="findings" id="findings"><h2>What went wrong</h2><ol>${shown
        .map(
          ({ v, i }) =>
            `<li><span class="ck">${e(v.checker)}</span> ${e(v.sentence)} <button type="button" class="linklike" data-violation="${i}">show on the timeline</button></li>`,
        )
        .join(
          "",
        )}</ol>${hidden > 0 ? `<p class="more">…and ${hidden} more like these: every one is a red band on the timeline.</p>` : ""}${otherFindings(view, lin)}</section>`
    : view.findings.length
      ? `<section class="findings" id="findings"><h2>What went wrong</h2>${otherFindings(view, lin)}</section>`
      : "";
}

/** Grants the importer clamped (stamped before their invoke): said, since they are neither drawn nor counted. */
function clampedSentence(n: number): string {
  const one = n === 1;
  return `${n} grant${one ? " is" : "s are"} left out: ${one ? "its" : "their"} completion ${one ? "is" : "are"} stamped before ${one ? "its" : "their"} own invoke in the file, so ${one ? "its time was" : "their times were"} raised to keep the file's order and ${one ? "its" : "their"} wait is not a latency (see the note at the top).`;
}

/** The acquire-latency section, or a sentence for a register history (no locks). */
function latencySection(view: RunView): string {
  const e = escapeHtml;
  const lat = view.latency;
  if (view.timeIsOrder)
    return `<section>
<h2>Acquire latency</h2>
<p class="explain">This history has no times (its events are positions in the file): no latency to measure.</p>
<div id="latency" class="stack" hidden></div>
</section>`;
  const figures =
    lat.count === 0
      ? lat.clamped.length === 0
        ? "No lock was granted in this run."
        : "No grant left to measure."
      : `${lat.count} grant${lat.count === 1 ? "" : "s"}. p50 <b>${e(fmtMs(lat.p50Ms!))}</b>, p99 <b class="${lat.p99Ms! > lat.targetMs ? "over" : "under"}">${e(fmtMs(lat.p99Ms!))}</b>, max ${e(fmtMs(lat.maxMs!))} — the target is p99 under ${lat.targetMs} ms.`;
  const latencyLine = lat.clamped.length === 0 ? figures : `${clampedSentence(lat.clamped.length)} ${figures}`;
  return view.regOps.lane.length > 0
    ? `<section>
<h2>Acquire latency</h2>
<p class="explain">A register history: no locks, so no acquire latency. Its operations are the bars on the timeline.</p>
<div id="latency" class="stack" hidden></div>
</section>`
    : `<section>
<h2>Acquire latency <small>from invoking acquire to the grant, per grant</small></h2>
<p class="explain">${latencyLine}</p>
<div id="latency" class="stack"></div>
<p class="explain">Log scale. Points above the target line (orange) waited more than ${lat.targetMs} ms, usually for another holder; red points are grants involved in a violation.</p>
</section>`;
}

/** The timeline's legends: client marks, then the lock servers' notes. */
const TIMELINE_LEGENDS = `<div class="legend">
<span><i class="sw hold"></i>hold (label: fencing token or grant)</span>
<span><i class="sw wait"></i>waiting for the lock</span>
<span><i class="sw lease"></i>lease as the client's clock times it</span>
<span><i class="sw lapsed"></i>acting after its lease lapsed</span>
<span><i class="sw attempt"></i>failed acquire</span>
<span><i class="sw write-ok"></i>write accepted</span>
<span><i class="sw write-no">×</i>write rejected</span>
<span><i class="sw pause"></i>paused (e.g. GC)</span>
<span><i class="sw crash"></i>crashed</span>
<span><i class="sw jump"></i>clock jump</span>
<span><i class="sw bad"></i>violation</span>
</div>
<div class="legend servers">
<span>lock servers:</span>
<span><i class="sw n-set"></i>key set (expiry by the node's clock)</span>
<span><i class="sw n-expiry"></i>key / session / lease expired</span>
<span><i class="sw n-delete">×</i>another client's key deleted</span>
<span><i class="sw n-foreign"></i>another client's key renewed or overwritten</span>
<span><i class="sw n-decision"></i>expiry decided (by whom, which clock)</span>
<span><i class="sw n-role"></i>leader, failover, promotion</span>
</div>`;

const FINDINGS_PER_CHECKER = 4;

/** Kinds of server note too many to draw every one of (a key set per grant in a long run). */
function omittedNotes(view: RunView): string {
  if (view.notesOmitted.length === 0) return "";
  const parts = view.notesOmitted.map((o) => `${escapeHtml(o.f)} ${o.drawn} of ${o.total}`);
  return `<p class="explain notes-omitted">Server notes too many to draw each are drawn spread over the run, a few in each hundredth of it, and the rest counted on their lanes (a grey strip, "+N"): ${parts.join("; ")}.</p>`;
}

function otherFindings(view: RunView, lin: LinearizationView | undefined): string {
  const drawn = new Set(view.violations.map((v) => v.checker));
  const rest = view.findings.filter((f) => !drawn.has(f.checker));
  if (rest.length === 0) return "";
  const item = (f: RunView["findings"][number]): string =>
    f.checker === "linearizability" && lin
      ? `<li><span class="ck">${escapeHtml(f.checker)}</span> ${escapeHtml(linearizationSentence(lin))} <button type="button" class="linklike" data-show="span:${lin.spanUs[0]}-${lin.spanUs[1]}">show on the timeline</button> <a href="#linearization">the linearization, drawn</a></li>`
      : `<li><span class="ck">${escapeHtml(f.checker)}</span> ${escapeHtml(f.summary)}</li>`;
  return `<ul>${rest.map(item).join("")}</ul>`;
}

/** The steps list when it has nothing: never "no violations" beside a checker that failed. */
function noSteps(r: RunRecord): string {
  const failed = r.verdicts.results.filter((c) => c.valid === false).map((c) => c.checker);
  if (failed.length > 0) return `No fault or event to step through here; what failed (${failed.join(", ")}) is under "What went wrong" above.`;
  return r.verdicts.valid === "unknown"
    ? "Nothing of note: no faults; a checker could not decide (see Checkers)."
    : "Nothing of note: no faults, no violations.";
}

/**
 * The header's time: the run's whole length, as far as the timeline's axis goes (the
 * scenario's duration and the drain after it), or, for a history without times, its events.
 */
function timeFact(r: RunRecord): [string, string] {
  const m = r.meta;
  if (m.timeIsOrder) return ["history", `${m.eventsRun} events, no times: positions in the file`];
  const endMs = m.endUs / 1000;
  const drain = endMs > m.durationMs && !m.historyTail ? ` (${fmtMs(m.durationMs)} and a ${fmtMs(endMs - m.durationMs)} drain)` : "";
  return ["simulated", `${fmtMs(Math.max(endMs, m.durationMs))}${drain}`];
}

/** What the command said about its input (check's notes), on the page as on the terminal. */
function notesLine(r: RunRecord): string {
  if (!r.notes?.length) return "";
  return `<ul class="run-notes">${r.notes.map((n) => `<li><b>note:</b> ${escapeHtml(n)}</li>`).join("")}</ul>`;
}

function fmtSeconds(us: number): string {
  return `${(us / 1e6).toFixed(3)} s`;
}

/** Whether the run tested the lock, and why (not): results.json from before the challenge was judged has none. */
/** A counterexample the audit wrote says which finding it shows, and links back to it. */
function findingLine(r: RunRecord): string {
  const f = r.finding;
  if (!f) return "";
  const e = escapeHtml;
  return `<p class="from-audit">Counterexample of the audit finding <a href="${e(f.auditHref)}">${e(f.title)}</a> <code>${e(f.cause)}</code>: the audit page has what it means, the attacks that showed it and their rates.</p>\n`;
}

function challengeLine(r: RunRecord): string {
  const c = r.verdicts.challenge;
  if (!c) return "";
  return `<p class="challenge ${c.challenged ? "met" : "unmet"}">${c.challenged ? "challenged" : "<b>not challenged</b>"}: ${escapeHtml(c.why)}</p>`;
}
