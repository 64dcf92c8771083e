// Terminal output of `lockstep real`: every run marked as a real run that cannot be replayed,
// with the versions of what it ran on.
import { join } from "node:path";
import { portMoveLines, type RealRunRecord } from "../real/record.js";
import { loadText } from "../real/load.js";
import { nemesisRowLine } from "../real/nemesis.js";
import type { RealSummary } from "../real/summary.js";
import { checksHold } from "../real/summary.js";
import { realSupportOf, mechanismOf } from "../faults/index.js";

/** What a kind's proxy condition does to the bytes, as its definition says. */
const does = (kind: string): string => {
  const real = realSupportOf(kind);
  return ("does" in real ? real.does : undefined) ?? "condition every chunk";
};

const mark = (v: boolean | string): string => (v === true ? "ok  " : v === false ? "FAIL" : "??  ");

export function versionsLine(r: RealRunRecord): string {
  const servers = [...new Set(r.real.servers.map((s) => `${s.software ?? "redis-server"} ${s.version}`))].join(", ");
  const pkgs = new Map<string, string>();
  for (const c of r.real.clients) for (const [k, v] of Object.entries(c.packages)) pkgs.set(k, v);
  return `${servers}; ${[...pkgs].map(([k, v]) => `${k} ${v}`).join(", ")}`;
}

/** What ran: the servers (and any that moved port), the nemesis's row, the clients, versions, time scale. */
function whatRanLines(r: RealRunRecord): string[] {
  const lines: string[] = [];
  lines.push(
    `  servers: ${r.real.servers.map((s) => `${s.id} (${s.software ?? "redis-server"} ${s.version}, 127.0.0.1:${s.port}${s.aof === "n/a" ? "" : `, AOF ${s.aof}`})`).join(", ")}`,
  );
  for (const m of portMoveLines(r)) lines.push(`  port moved: ${m}`);
  if (r.real.nemesis) lines.push(`  ${nemesisRowLine(r.real.nemesis.simRow, r.verdicts.outcome)}`);
  lines.push(`  clients: ${r.real.clients.map((c) => c.id).join(", ")} — one node process each: ${r.real.clientRecipe}`);
  lines.push(`  versions: ${versionsLine(r)}`);
  for (const n of [...new Set(r.real.clients.flatMap((c) => c.notes ?? []))]) lines.push(`  clients saw: ${n}`);
  const ts = r.real.timeScale;
  lines.push(
    `  time scale: ${ts.factor === 1 ? "1 (the scenario's times)" : `${ts.factor} (scaled: ${ts.scaled.join(", ")}; not scaled: ${ts.unscaled.join(", ")})`}`,
  );
  return lines;
}

/** What a fault step did on the real servers, by its mechanism: a proxy cut or condition, a clock step, a kill, a stop. */
function faultStepLine(f: RealRunRecord["real"]["faults"][number]): string {
  const mechanism = mechanismOf(f.kind);
  if (mechanism === "proxy-cut" || mechanism === "proxy-heal") {
    const healed =
      mechanism === "proxy-heal"
        ? ""
        : f.resumedUs !== undefined
          ? `, healed after ${((f.resumedUs - f.startUs) / 1000).toFixed(1)} ms`
          : ", not healed within the run";
    return `  fault step ${f.step}: ${f.kind}${f.target !== "network" ? ` of ${f.target}` : ""} (${f.trigger} trigger) at ${(f.startUs / 1000).toFixed(1)} ms: the cut links hold what they carry (at their proxies; the storage's, in the driver)${healed}`;
  }
  if (mechanism === "proxy-condition") {
    const ended = f.resumedUs !== undefined ? `, ended after ${((f.resumedUs - f.startUs) / 1000).toFixed(1)} ms` : ", in force to the run's end";
    const lost = f.loss ? ` (${f.loss.lostChunks} chunk(s) lost, ${f.loss.resends} resend(s) modelled)` : "";
    return `  fault step ${f.step}: ${f.kind} (${f.trigger} trigger) at ${(f.startUs / 1000).toFixed(1)} ms: the links' proxies ${does(f.kind)}${lost}${ended}`;
  }
  if (mechanism === "clock-step") {
    const done = f.wall
      ? `libfaketime file rewritten: the child's Date.now() ${f.wall.beforeMs} → ${f.wall.afterMs}, a step of ${f.wall.stepMs} ms beyond its monotonic clock`
      : f.keys
        ? `emulated (${f.emulated}): ${f.keys.shifted} key TTL(s) shifted, ${f.keys.deleted} key(s) expired at once, in ${(((f.stoppedUs ?? f.startUs) - f.startUs) / 1000).toFixed(1)} ms`
        : "NOT applied";
    return `  fault step ${f.step}: ${f.kind} of ${f.target} (${f.trigger} trigger) at ${(f.startUs / 1000).toFixed(1)} ms: ${done}`;
  }
  if (mechanism !== "stop-signal") {
    const killed = f.stoppedUs !== undefined ? `killed ${((f.stoppedUs - f.startUs) / 1000).toFixed(1)} ms after SIGKILL` : "NOT seen dead";
    const back =
      f.resumedUs === undefined
        ? ", not restarted within the run"
        : `, restarted after ${((f.resumedUs - f.startUs) / 1000).toFixed(1)} ms${f.readyUs !== undefined ? `, ready ${((f.readyUs - f.resumedUs) / 1000).toFixed(0)} ms later` : ", NOT ready again"}`;
    const leader = f.resolvedTarget !== undefined ? " (the leader when the step fired)" : "";
    const cut = f.aofCut
      ? `, AOF cut ${f.aofCut.fromBytes} → ${f.aofCut.toBytes} bytes (host crash emulated: back to its last fsync tick${f.aofCut.lastTickUs !== undefined ? `, at ${(f.aofCut.lastTickUs / 1000).toFixed(1)} ms` : ""})`
      : "";
    return `  fault step ${f.step}: ${f.kind} of ${f.target}${leader} (${f.trigger} trigger) at ${(f.startUs / 1000).toFixed(1)} ms: ${killed}${cut}${back}`;
  }
  const stop = f.stoppedUs !== undefined ? `stopped ${((f.stoppedUs - f.startUs) / 1000).toFixed(1)} ms after SIGSTOP` : "NOT shown stopped";
  const held =
    f.releasedUs !== undefined && f.stoppedUs !== undefined
      ? `, held reply released ${((f.releasedUs - f.stoppedUs) / 1000).toFixed(1)} ms after the stop`
      : "";
  const cont = f.resumedUs !== undefined ? `, SIGCONT after ${((f.resumedUs - f.startUs) / 1000).toFixed(1)} ms` : ", still stopped at the run's end";
  return `  fault step ${f.step}: ${f.kind} of ${f.target} (${f.trigger} trigger) at ${(f.startUs / 1000).toFixed(1)} ms: ${stop}${held}${cont}`;
}

export function formatRealRun(r: RealRunRecord, dir: string): string {
  const lines: string[] = [];
  lines.push(`lockstep real ${r.scenario.name} — design ${r.scenario.design}, run ${r.real.run}/${r.real.runs} — ${r.real.note}`);
  lines.push(...whatRanLines(r));
  for (const n of r.real.notApplied) lines.push(`  not applied: ${n}`);
  for (const f of r.real.faults) lines.push(faultStepLine(f));
  for (const c of r.verdicts.results) lines.push(`  ${mark(c.valid)} ${c.checker.padEnd(18)} ${c.summary}`);
  const bad = r.real.checks.filter((c) => !c.ok);
  if (bad.length === 0)
    lines.push(`  run checks: all ${r.real.checks.length} hold (${r.real.checks.find((c) => c.name === "fault steps fired")?.detail ?? ""})`);
  for (const c of bad) lines.push(`  run check FAILED: ${c.name}: ${c.detail}`);
  lines.push(
    `outcome: ${r.verdicts.outcome} (expected: ${r.scenario.expect}${r.expectationMet ? ", as expected" : ", NOT as expected"}); wall ${(r.real.wallMs / 1000).toFixed(1)} s at ${loadText(r.real.load)}, ${r.meta.eventsRun} events, ended: ${r.real.endedBy}`,
  );
  lines.push(`${r.real.note}; run it again (a new history): ${r.real.rerun ?? ""}`);
  lines.push(`wrote ${join(dir, "history.jsonl")}, ${join(dir, "results.json")}, ${join(dir, "report.html")}`);
  return lines.join("\n") + "\n";
}

/** One line per run when there are several. */
export function formatRealRunLine(r: RealRunRecord, dir: string): string {
  const moves = portMoveLines(r);
  const row = r.real.nemesis?.simRow;
  const sim = row
    ? `; simulator, same seed: ${row.sim}${row.simPerformed !== undefined ? ` (${row.simPerformed} with the ${row.stepsPerformed} steps performed)` : ""}`
    : "";
  const expectation = r.expectationMet ? " (as expected)" : ` (expected ${r.scenario.expect})`;
  const wall = `wall ${(r.real.wallMs / 1000).toFixed(1)} s at load ${r.real.load.oneMinute.max}`;
  return `run ${r.real.run}/${r.real.runs}: ${r.verdicts.outcome}${expectation}${sim}, ${wall}, ${r.meta.eventsRun} events${checksHold(r) ? "" : ", RUN CHECKS FAILED"}${moves.length ? `; port moved: ${moves.join("; ")}` : ""} → ${dir}\n`;
}

export function formatRealSummary(s: RealSummary, first: RealRunRecord | undefined, summaryPath: string): string {
  const lines: string[] = [];
  const of = s.stoppedBy ? `${s.runs} of ${s.runsPlanned} real runs` : `${s.runs} real runs`;
  lines.push(`lockstep real ${s.scenario} — design ${s.design}, ${of} — ${s.note}`);
  if (s.stoppedBy)
    lines.push(`  STOPPED at run ${s.stoppedBy.run}/${s.runsPlanned}: ${s.stoppedBy.reason}; the figures below are of the ${s.runs} finished run(s)`);
  if (first) lines.push(`  versions: ${versionsLine(first)}; time scale ${s.timeScale}`);
  const order = Object.entries(s.outcomes).sort((a, b) => b[1] - a[1]);
  if (s.runs > 0) {
    lines.push(`  outcomes: ${order.map(([o, n]) => `${o} ${n}/${s.runs} (${((100 * n) / s.runs).toFixed(0)}%)`).join(", ")}`);
    lines.push(
      `  expected ${s.expect}: ${s.expected.matched}/${s.runs}; safety violations in ${s.safetyViolations}/${s.runs}${s.invalidRuns > 0 ? `; INVALID runs (run checks failed): ${s.invalidRuns}` : ""}`,
    );
  }
  if (s.simVsReal) {
    const counts = (c: Record<string, number>) =>
      Object.entries(c)
        .map(([o, n]) => `${o} ${n}/${s.runs}`)
        .join(", ");
    const v = s.simVsReal;
    lines.push(
      `  sim vs real (the runs' seeds, the same drawn steps): simulator ${counts(v.sim)}; with only the steps real mode performed ${counts(v.simPerformedOnly)}; real ${counts(v.real)}`,
    );
  }
  const l = s.load.oneMinute;
  lines.push(
    `  wall time: ${(s.wallMs.total / 1000).toFixed(1)} s in all, at most ${(s.wallMs.max / 1000).toFixed(1)} s per run; load ${l.min}–${l.max} (mean ${l.mean}) on ${s.load.cores} cores`,
  );
  lines.push(`wrote ${summaryPath} and ${s.runs} run directories`);
  return lines.join("\n") + "\n";
}
