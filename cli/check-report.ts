/**
 * report.html for `lockstep check <history> --out DIR`: the run report
 * (reports/run-report.ts renderRunReport, unchanged) drawn from an imported history,
 * with a RunRecord made from what the history and the flags say. The parts that would
 * mislead about a history lockstep did not run are rewritten, as real/report.ts does
 * for real runs: the replay box says it is imported and gives the command that checks
 * it again; no expected verdict; times are the history's own, in file order.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { NEMESIS, type HistoryEvent } from "../sim/history.js";
import type { CheckContext } from "../checkers/types.js";
import type { Verdicts } from "../checkers/run-all.js";
import type { RunRecord } from "../reports/types.js";
import { renderRunReport } from "../reports/run-report.js";
import { escapeHtml } from "../reports/html.js";
import { lockstepVersion } from "../harness/version.js";

export const IMPORTED_NOTE = "imported history: not a lockstep run, nothing to replay";
const RECHECK = "check it again: ";

/** The history's client processes (not the nemesis or storage) and locks, in order of first appearance. */
function actorsOf(history: readonly HistoryEvent[]): { clients: string[]; locks: string[] } {
  const clients: string[] = [];
  const seen = new Set<string>([NEMESIS, "storage"]);
  const locks: string[] = [];
  for (const e of history) {
    if (!seen.has(e.process)) {
      seen.add(e.process);
      clients.push(e.process);
    }
    if (e.lock !== undefined && !locks.includes(e.lock)) locks.push(e.lock);
  }
  return { clients, locks };
}

/** A workload for the report to read: the history's locks, the check's TTL and fencing, nothing it did not say. */
function importedWorkload(locks: string[], ctx: CheckContext): RunRecord["scenario"]["workload"] {
  return {
    locks,
    ttlMs: ctx.ttlMs ?? 0,
    waitMs: 0,
    workMs: 0,
    thinkMs: 0,
    thinkJitterMs: 0,
    fencing: ctx.fencing ?? false,
    ownerCheck: false,
    resourceTimeoutMs: 0,
    extendTtlMs: 0,
    renewEveryMs: 0,
    validityCheck: "before-read",
  };
}

/** A RunRecord for an imported history: the fields a report reads, filled from the history. */
export function recordForImported(
  file: string,
  format: string,
  model: string,
  history: readonly HistoryEvent[],
  ctx: CheckContext,
  verdicts: Verdicts,
  recheck: string,
  /** What check said about the file (raised :time values, no :time): the page says it too. */
  notes: readonly string[] = [],
): RunRecord {
  const { clients, locks } = actorsOf(history);
  const endUs = history.length > 0 ? history[history.length - 1]!.timeUs : 0;
  const fencingTokens = history.some((e) => e.f === "acquire" && e.type === "ok" && typeof (e.value as { token?: unknown } | undefined)?.token === "number");
  const name = basename(file);
  return {
    lockstep: { version: lockstepVersion() },
    scenario: {
      name,
      title: `${name}: imported ${format} history, ${model} model`,
      story: `A history recorded elsewhere (${format}), checked by lockstep check under the ${model} model. File order is the history order; ${ctx.timeIsOrder ? "it has no times, so each event's time is its position in the file (#n)" : "times are the history's own"}.`,
      file,
      design: `imported (${format})`,
      expect: verdicts.outcome === "unknown" || verdicts.outcome === "not-challenged" ? "safe" : verdicts.outcome,
      clients: clients.map((id) => ({ id, startMs: 0 })),
      workload: importedWorkload(locks, ctx),
      faults: [],
    },
    seed: 0,
    replay: `${IMPORTED_NOTE}; ${RECHECK}${recheck}`,
    meta: {
      scenario: name,
      design: `imported (${format})`,
      seed: 0,
      durationMs: endUs / 1000,
      endUs,
      serverIds: [],
      clientIds: clients,
      fencingTokens,
      faults: [],
      eventsRun: history.length,
      network: {},
      clockSamples: [],
      ...(ctx.timeIsOrder ? { timeIsOrder: true as const } : {}),
    },
    ...(notes.length > 0 ? { notes: [...notes] } : {}),
    verdicts,
    expectationMet: true,
  };
}

/** The run report with the simulator-only claims rewritten for an imported history. */
export function renderImportedReport(record: RunRecord, history: readonly HistoryEvent[]): string {
  const e = escapeHtml;
  let html = renderRunReport(record, history);
  const box = `<div class="replay imported"><b>${e(IMPORTED_NOTE)}</b>. Check it again: <code id="replay-command">${e(record.replay.slice(record.replay.lastIndexOf(RECHECK) + RECHECK.length))}</code></div>`;
  const replay = /<div class="replay">[\s\S]*?<\/div>/;
  html = replay.test(html) ? html.replace(replay, () => box) : html.replace(/<body[^>]*>/, (b) => `${b}\n${box}`);
  html = html.replace(/<span class="expect [a-z]+">[\s\S]*?<\/span>/, `<span class="expect">imported: no expected verdict</span>`);
  html = html.replace(/<div><dt>seed<\/dt><dd>0<\/dd><\/div>/, "");
  const order = record.meta.timeIsOrder === true;
  html = html.replace("<dt>simulated</dt>", "<dt>history spans</dt>");
  html = html.replace(
    "<small>each process's wall-clock offset from true time</small>",
    "<small>not recorded in an imported history: the line at 0 says nothing about its clocks</small>",
  );
  html = html.replace(
    "<small>true time, as only a simulator knows it</small>",
    order ? "<small>no times in the history: each event at its position in the file (#n)</small>" : "<small>the history's own times, in file order</small>",
  );
  html = html.replace(
    "every time is simulated true time from the start of the run",
    order
      ? "imported history without times: every time is an event's position in the file (#n)"
      : "imported history: times are the history's own (µs), kept in file order",
  );
  html = html.replace(/<title>lockstep: [^<]*<\/title>/, (t) => t.replace(/ seed 0/, "").replace("lockstep: ", "lockstep check: "));
  return html;
}

/** Write report.html into dir (rendered whole in memory, then a temporary file renamed). */
export function writeImportedReport(dir: string, html: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "report.html");
  const tmp = join(dir, ".report.html.tmp");
  writeFileSync(tmp, html);
  renameSync(tmp, path);
  return path;
}
