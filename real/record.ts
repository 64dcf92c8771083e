// results.json of a real run: the simulator's RunRecord (harness/artifacts.ts buildRecord, so
// every field a report reads is there) with the replay command replaced by the real-run
// note, and a `real` block: versions, time scale, fault log, run checks.
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { historyToJsonl, type HistoryEvent } from "../sim/history.js";
import { runCheckers } from "../checkers/run-all.js";
import { buildRecord } from "../harness/artifacts.js";
import { checkContextFor } from "../harness/check-context.js";
import type { RunRecord } from "../reports/types.js";
import { renderRunReport } from "../reports/run-report.js";
import type { RealPlan } from "./plan.js";
import { nemesisSimRow } from "./nemesis.js";
import { REAL_NOTE, type RealRunInfo, type RealRunOutput } from "./run.js";
import { escapeHtml } from "../reports/html.js";
import { loadText } from "./load.js";
import { shellWord } from "../harness/replay-command.js";
import { LOCK_CMD_SUFFIX } from "../scenarios/with-lock-driver.js";

export interface RealRunRecord extends RunRecord {
  real: RealRunInfo;
}

/** The command that runs the scenario again for real (a new history: nothing replays). */
export function rerunCommand(plan: RealPlan): string {
  const o = plan.original;
  // A scenario put on a lock driver by --lock-cmd (scenarios/with-lock-driver.ts) is named with the flag again.
  const cmd = (o.designOptions as { lockCmd?: unknown } | undefined)?.lockCmd;
  const byFlag = typeof cmd === "string" && o.name.endsWith(LOCK_CMD_SUFFIX);
  const shipped = o.file.startsWith("scenarios/");
  const arg = !shipped ? o.file : byFlag ? o.name.slice(0, -LOCK_CMD_SUFFIX.length) : o.name;
  const flag = byFlag ? ` --lock-cmd ${shellWord(cmd)}` : "";
  return `npx lockstep real ${shellWord(arg)}${flag}${plan.timeScale.factor !== 1 ? ` --time-scale ${plan.timeScale.factor}` : ""}`;
}

/** Judge a real run with the same checkers as a simulated one and build its record. */
export function recordRealRun(plan: RealPlan, out: RealRunOutput): RealRunRecord {
  const verdicts = runCheckers(out.history, checkContextFor(plan.scenario));
  const base = buildRecord(plan.scenario, out.meta.seed, { history: out.history, meta: out.meta }, verdicts);
  const rerun = rerunCommand(plan);
  const simRow = nemesisSimRow(plan);
  const nemesis = plan.nemesis && simRow ? { nemesis: { ...plan.nemesis, simRow } } : {};
  return { ...base, replay: `${REAL_NOTE}; run it again (a new history): ${rerun}`, real: { ...out.real, ...nemesis, rerun } };
}

/** history.jsonl, results.json and the marked report.html in `dir`, each written whole then renamed. */
export function writeRealArtifacts(dir: string, record: RealRunRecord, history: readonly HistoryEvent[]): void {
  const files: Array<[string, string]> = [
    ["history.jsonl", historyToJsonl(history)],
    ["results.json", JSON.stringify(record, null, 2) + "\n"],
    ["report.html", markRealReport(renderRunReport(record, history), record)],
  ];
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of files) {
    const tmp = join(dir, `.${name}.tmp`);
    writeFileSync(tmp, text);
    renameSync(tmp, join(dir, name));
  }
}

/** "redis-1 could not bind 127.0.0.1:40001 (another process took it after lockstep chose it) and runs on :40007", per move. */
export function portMoveLines(r: RealRunRecord): string[] {
  const ports = (ps: readonly number[]) => ps.map((p) => `127.0.0.1:${p}`).join(", ");
  return r.real.servers.flatMap((s) =>
    (s.portMoves ?? []).map(
      (m) => `${s.id} could not bind ${ports(m.fromPorts)} (another process took it after lockstep chose it) and started on ${ports(m.toPorts)}`,
    ),
  );
}

// The run report of a real run is the simulator's (reports/run-report.ts) with the parts
// that would mislead rewritten: the replay box becomes the "real run: not replayable"
// banner with the versions and the time scale, and the captions that speak of simulated
// true time speak of the driver's clock. Each rewrite looks for the text it replaces; if
// the report's markup changed, the banner goes in at the top of the body instead, so the
// mark is never lost (test/real/ checks it is there).
export function realBanner(r: RealRunRecord): string {
  const e = escapeHtml;
  const servers = [...new Set(r.real.servers.map((s) => `${s.software ?? "redis-server"} ${s.version}`))].join(", ");
  const pkgs = new Map<string, string>();
  for (const c of r.real.clients) for (const [k, v] of Object.entries(c.packages)) pkgs.set(k, v);
  const clients = [...pkgs].map(([k, v]) => (k === "node" ? `node ${v}` : `${k} ${v}`)).join(", ");
  const f = r.real.timeScale.factor;
  const scale = f === 1 ? "the scenario's times as written" : `time scale ${f}: TTLs, waits, pauses and durations ×${f} (the story tells the times as written)`;
  const notApplied = r.real.notApplied.length ? ` Not applied: ${r.real.notApplied.join("; ")}.` : "";
  const moves = portMoveLines(r);
  const moved = moves.length ? ` Port moved: ${moves.join("; ")}.` : "";
  return (
    `<div class="replay real-run"><b>${e(r.real.note)}</b> — real servers (${e(servers)}) and real clients (${e(clients)}: ${e(r.real.clientRecipe)}) on 127.0.0.1, ` +
    `run ${r.real.run} of ${r.real.runs}, ${e(scale)}, ${(r.real.wallMs / 1000).toFixed(1)} s wall time at ${loadText(r.real.load)}; the seed only seeds think times.${e(moved)}${e(notApplied)} ` +
    `Run it again (a new history): <code id="replay-command">${e(r.real.rerun ?? r.replay)}</code></div>`
  );
}

export function markRealReport(html: string, r: RealRunRecord): string {
  const banner = realBanner(r);
  let out = html;
  const replay = /<div class="replay">[\s\S]*?<\/div>/;
  out = replay.test(out) ? out.replace(replay, () => banner) : out.replace(/<body[^>]*>/, (b) => `${b}\n${banner}`);
  if (!out.includes(r.real.note)) out = banner + out; // no <body> either: still marked
  out = out.replace("<small>true time, as only a simulator knows it</small>", "<small>the driver's clock (CLOCK_MONOTONIC) from the run's start</small>");
  out = out.replace(
    "every time is simulated true time from the start of the run",
    "real run: every time is CLOCK_MONOTONIC from the run's start, read by the driver and the client processes",
  );
  out = out.replace("<dt>simulated</dt>", "<dt>scenario time</dt>");
  out = out.replace(/<title>lockstep: /, "<title>lockstep real: ");
  return out;
}
