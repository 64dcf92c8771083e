/**
 * The playground's page script (bundled by build.ts): the student's edited scenario
 * is run here, in the tab, by the very runner, designs and checkers `lockstep run`
 * uses, and drawn by the run report's renderer in a frame below the editor. The
 * page's state (scenario JSON and seed) lives in the URL fragment.
 */
import { runEdited, verdictsOf, type PlaygroundData, type PlayRun, type RawScenario } from "./play.js";
import { createEditor } from "./editor.js";
import { decodeState, encodeState } from "./state.js";

const data = JSON.parse(document.getElementById("playground-data")!.textContent!) as PlaygroundData;
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const scenarioSel = $<HTMLSelectElement>("pg-scenario");
const designSel = $<HTMLSelectElement>("pg-design");
const seedIn = $<HTMLInputElement>("pg-seed");
const fencingIn = $<HTMLInputElement>("pg-fencing");
const challengeSel = $<HTMLSelectElement>("pg-challenge");
const frame = $<HTMLIFrameElement>("pg-report");
const errorLine = $("pg-error");

interface State {
  base: string;
  raw: RawScenario;
  seed: number;
}
let state: State;
let last: PlayRun | undefined;
/** Said once, after the next run (a damaged link). */
let notice = "";

/** What the page did, for the browser test and the bench: the last run's history and timings. */
const stats = { runs: 0, lastMs: 0, simMs: 0, outcome: "", historyJsonl: "", scenarioFile: "", fileName: "", seed: 0, error: "" };
(window as unknown as { lockstepPlayground: typeof stats }).lockstepPlayground = stats;

const editor = createEditor(
  $("pg-timeline"),
  $("pg-faults"),
  () => state.raw,
  (edit) => {
    edit(state.raw);
    markEdited();
    rerun();
  },
  preview,
);

/**
 * While a handle is dragged: the verdict the run would get if let go here, at most once
 * a frame; the report is drawn when it is let go.
 */
let previewPending: ((raw: RawScenario) => void) | null = null;
function preview(edit: (raw: RawScenario) => void): void {
  const first = previewPending === null;
  previewPending = edit;
  if (!first) return;
  const runsThen = runsStarted;
  requestAnimationFrame(() => {
    // Let go meanwhile: the real run has drawn its verdict.
    if (runsStarted !== runsThen) {
      previewPending = null;
      return;
    }
    const raw = JSON.parse(JSON.stringify(state.raw)) as RawScenario;
    previewPending!(raw);
    previewPending = null;
    try {
      const v = verdictsOf(raw, state.seed, `${state.raw.name}.json`);
      const badge = $("pg-outcome");
      badge.textContent = v.outcome.replace(/-/g, " ") + " (if let go here)";
      badge.className = `badge outcome-${v.outcome}`;
      // The lines under the badge say the same run's results; the report below is the last
      // run's until the handle is let go, and looks it.
      showChecks(v);
      document.body.setAttribute("data-previewing", "1");
    } catch {
      // The edit is checked in full when it is let go.
    }
  });
}

function markEdited(): void {
  if (state.raw.name.endsWith("-edited")) return;
  state.raw.name = `${state.base}-edited`;
  // The story told the original faults; the steps beside it are this run's.
  state.raw.title = `${String(state.raw.title)} (edited in the playground)`;
  state.raw.story = `Edited in the playground from ${state.base}; its story, for the original faults: ${String(state.raw.story)}`;
}

function fill(): void {
  for (const s of data.scenarios) {
    const o = document.createElement("option");
    o.value = s.name;
    o.textContent = (s.claims.length ? "debate · " : "") + s.name;
    scenarioSel.appendChild(o);
  }
  for (const d of data.designs) {
    const o = document.createElement("option");
    o.value = d;
    o.textContent = d;
    designSel.appendChild(o);
  }
}

function start(name: string): State {
  const s = data.scenarios.find((x) => x.name === name) ?? data.scenarios.find((x) => x.name === "naive-gc-pause") ?? data.scenarios[0]!;
  const raw = JSON.parse(JSON.stringify(s.raw)) as RawScenario;
  return { base: s.name, raw, seed: typeof raw.seed === "number" ? raw.seed : 1 };
}

function fromUrl(): State {
  const h = location.hash.slice(1);
  if (h.startsWith("scenario=")) return start(decodeURIComponent(h.slice("scenario=".length)));
  if (h.startsWith("run=")) {
    const st = decodeState(h.slice(4));
    if (st) return st;
    notice = "The link's run could not be read (the #run= part is damaged); showing naive-gc-pause.";
  }
  return start("naive-gc-pause");
}

function syncControls(): void {
  scenarioSel.value = state.base;
  designSel.value = state.raw.design;
  seedIn.value = String(state.seed);
  fencingIn.checked = state.raw.workload?.fencing === true;
  challengeSel.value = (state.raw.challenge as { kind?: string } | undefined)?.kind ?? "overlapping-belief";
  const claims = data.scenarios.find((s) => s.name === state.base)?.claims ?? [];
  $("pg-claims").textContent = claims.length ? "Tests: " + claims.map((c) => `${c.who}: “${c.claim}”`).join(" · ") : "";
}

let runsStarted = 0;
function rerun(): void {
  const t0 = performance.now();
  runsStarted++;
  syncControls();
  const file = state.raw.name === state.base ? data.scenarios.find((s) => s.name === state.base)!.file : `${state.raw.name}.json`;
  history.replaceState(null, "", "#run=" + encodeState(state));
  let run: PlayRun;
  try {
    run = runEdited(state.raw, state.seed, file);
  } catch (e) {
    // Bad input (a fault on a server the design lacks, fencing on a design without tokens): say so, keep the last run drawn.
    stats.error = errorLine.textContent = (e as Error).message;
    document.body.setAttribute("data-error", "1");
    return;
  }
  stats.error = "";
  errorLine.textContent = notice;
  notice = "";
  document.body.removeAttribute("data-error");
  last = run;
  stats.simMs = performance.now() - t0;
  showVerdict(run);
  editor.draw(run.faultStartsMs, state.raw.durationMs);
  frame.onload = () => {
    fitFrame();
    stats.lastMs = performance.now() - t0;
    stats.runs++;
    document.body.setAttribute("data-runs", String(stats.runs));
  };
  frame.srcdoc = run.reportHtml;
}

function showVerdict(run: PlayRun): void {
  const v = run.record.verdicts;
  stats.outcome = v.outcome;
  stats.historyJsonl = run.historyJsonl;
  stats.seed = state.seed;
  stats.fileName = `${state.raw.name}.json`;
  stats.scenarioFile = JSON.stringify(state.raw, null, 2) + "\n";
  const badge = $("pg-outcome");
  badge.textContent = v.outcome.replace(/-/g, " ");
  badge.className = `badge outcome-${v.outcome}`;
  document.body.setAttribute("data-outcome", v.outcome);
  document.body.removeAttribute("data-previewing");
  showChecks(v);
  $("pg-replay").textContent = `npx lockstep run ${state.raw.name}.json --seed ${state.seed}`;
}

/** The challenge sentence and one line per checker, of a run or of a drag's preview. */
function showChecks(v: PlayRun["record"]["verdicts"]): void {
  $("pg-challenged").textContent = `${v.challenge.challenged ? "challenged" : "NOT challenged"}: ${v.challenge.why}`;
  const lines = $("pg-checkers");
  lines.textContent = "";
  for (const c of v.results) {
    const li = document.createElement("li");
    li.className = c.valid === false ? "fail" : c.valid === true ? "ok" : "unknown";
    li.textContent = `${c.valid === true ? (c.skipped ? "not checked" : "passed") : c.valid === false ? "FAILED" : "undecided"} · ${c.checker}: ${c.summary}`;
    lines.appendChild(li);
  }
}

/** The report frame as tall as its page, so the playground scrolls as one page. */
function fitFrame(): void {
  const doc = frame.contentDocument;
  // The body's own height: the document's is at least the frame's, so it would never shrink.
  if (doc?.body) frame.style.height = Math.ceil(doc.body.getBoundingClientRect().height) + 24 + "px";
}

function download(): void {
  const blob = new Blob([JSON.stringify(state.raw, null, 2) + "\n"], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `${state.raw.name}.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

fill();
state = fromUrl();
scenarioSel.addEventListener("change", () => {
  state = start(scenarioSel.value);
  rerun();
});
designSel.addEventListener("change", () => {
  const original = data.scenarios.find((s) => s.name === state.base)!.raw;
  state.raw.design = designSel.value;
  // Design options belong to one design: another design gets its defaults.
  if (designSel.value === original.design && original.designOptions !== undefined) state.raw.designOptions = JSON.parse(JSON.stringify(original.designOptions));
  else delete state.raw.designOptions;
  markEdited();
  rerun();
});
seedIn.addEventListener("change", () => {
  const n = Number(seedIn.value);
  if (!Number.isInteger(n) || n < 0) {
    errorLine.textContent = "seed: expected a whole number ≥ 0";
    return;
  }
  state.seed = n;
  rerun();
});
fencingIn.addEventListener("change", () => {
  state.raw.workload = { ...state.raw.workload, fencing: fencingIn.checked };
  markEdited();
  rerun();
});
challengeSel.addEventListener("change", () => {
  // The scenario's own field: the downloaded file carries it, so the CLI judges the same.
  state.raw.challenge = { kind: challengeSel.value };
  markEdited();
  rerun();
});
$("pg-download").addEventListener("click", download);
$("pg-reset").addEventListener("click", () => {
  state = start(state.base);
  rerun();
});
window.addEventListener("hashchange", () => {
  if (location.hash.startsWith("#scenario=") || location.hash.slice(5) !== encodeState(state)) {
    state = fromUrl();
    rerun();
  }
});
let resizePending = false;
window.addEventListener("resize", () => {
  if (resizePending) return;
  resizePending = true;
  requestAnimationFrame(() => {
    resizePending = false;
    if (last) editor.draw(last.faultStartsMs, state.raw.durationMs);
    fitFrame();
  });
});
rerun();
