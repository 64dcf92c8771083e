// What must hold on every real run for its history to mean what the scenario says — checked
// after each run, kept in results.json (`real.checks`), and a failure makes the run invalid
// (the CLI says so and exits 1) whatever the checkers found:
//   - every pause stopped its target (the kernel showed it stopped);
//   - a reply or go held for a triggered pause left only after the stop took hold, so the
//     target could not act on it before the pause (the race REAL-SYSTEMS.md warns of);
//   - every pause that ended lasted at least its duration on the run clock;
//   - a paused client recorded nothing between its stop and its SIGCONT (it was frozen whole);
//   - each client's events arrived in the order it stamped them (one clock, no reordering);
//   - no client had two operations outstanding at once (the workload's own rule);
//   - (with crash/restart steps) every crashed server was seen dead; whether it was back and
//     ready by the run's end is said, not required.
// Informational: fault steps whose trigger never happened (the simulator would not fire them either).
import type { HistoryEvent } from "../sim/history.js";
import { NEMESIS } from "../sim/history.js";
import { killsProcess, mechanismOf } from "../faults/index.js";
import type { FaultLog } from "./faults.js";
import type { RealPlan } from "./plan.js";
import { RESOURCE_ID } from "./storage.js";

export interface RunCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export function checkRun(
  plan: RealPlan,
  history: readonly HistoryEvent[],
  allFaults: readonly FaultLog[],
  clients: ReadonlyArray<{ id: string; misordered: number }>,
): RunCheck[] {
  const pauses = allFaults.filter((f) => mechanismOf(f.kind) === "stop-signal");
  return [
    ...crashChecks(allFaults.filter((f) => killsProcess(f.kind))),
    ...jumpChecks(allFaults.filter((f) => mechanismOf(f.kind) === "clock-step" && f.emulated !== undefined)),
    ...pauseChecks(pauses),
    frozenCheck(pauses, history),
    stampOrderCheck(clients),
    oneAtATimeCheck(history),
    firedCheck(plan, allFaults),
  ];
}

/** A crashed server was killed (its exit seen); one due back answering again is said, not required. */
function crashChecks(crashes: readonly FaultLog[]): RunCheck[] {
  const checks: RunCheck[] = [];
  if (crashes.length > 0) {
    // A crashed server was killed (its exit seen), and one due back answered its ready check again.
    // Not back by the run's end is said, not a failure: the run still is the scenario up to there.
    const bad = crashes.filter((f) => f.stoppedUs === undefined);
    checks.push({
      name: "crashed servers died",
      ok: bad.length === 0,
      detail:
        bad.length === 0
          ? crashes
              .map(
                (f) =>
                  `step ${f.step}: ${f.target} killed ${((f.stoppedUs! - f.startUs) / 1000).toFixed(1)} ms after SIGKILL${f.readyUs !== undefined ? `, ready again ${((f.readyUs - f.resumedUs!) / 1000).toFixed(0)} ms after its restart` : f.resumedUs === undefined ? ", not restarted within the run" : ", restarted but not ready by the run's end"}`,
              )
              .join("; ")
          : `not seen dead: ${bad.map((f) => `step ${f.step} (${f.target})`).join(", ")}`,
    });
  }
  return checks;
}

/** An emulated clock jump counts only if its TTL shift ran on the server. */
function jumpChecks(jumps: readonly FaultLog[]): RunCheck[] {
  const checks: RunCheck[] = [];
  if (jumps.length > 0) {
    // An emulated jump counts only if its TTL shift ran on the server (it answered with its counts).
    const missed = jumps.filter((f) => f.keys === undefined);
    checks.push({
      name: "clock jumps applied (emulated)",
      ok: missed.length === 0,
      detail:
        missed.length === 0
          ? jumps.map((f) => `step ${f.step}: ${f.target}: ${f.keys!.shifted} TTL(s) shifted, ${f.keys!.deleted} key(s) expired`).join("; ")
          : `TTL shift did not complete: ${missed.map((f) => `step ${f.step} (${f.target})`).join(", ")}`,
    });
  }
  return checks;
}

/** Every pause stopped its target, held replies left after the stop, pauses lasted their duration. */
function pauseChecks(faults: readonly FaultLog[]): RunCheck[] {
  const checks: RunCheck[] = [];
  const notStopped = faults.filter((f) => f.stoppedUs === undefined);
  checks.push({
    name: "pauses stopped their targets",
    ok: notStopped.length === 0,
    detail:
      faults.length === 0
        ? "no pause fired"
        : notStopped.length === 0
          ? faults.map((f) => `step ${f.step}: ${f.target} stopped ${((f.stoppedUs! - f.startUs) / 1000).toFixed(1)} ms after SIGSTOP was sent`).join("; ")
          : `never shown stopped: ${notStopped.map((f) => `step ${f.step} (${f.target})`).join(", ")}`,
  });
  const held = faults.filter((f) => f.trigger !== "time" && f.releasedUs !== undefined);
  const early = held.filter((f) => f.stoppedUs === undefined || f.releasedUs! < f.stoppedUs);
  checks.push({
    name: "held replies left after the stop",
    ok: early.length === 0,
    detail:
      held.length === 0
        ? "no reply or gate was held"
        : early.length === 0
          ? held.map((f) => `step ${f.step}: released ${((f.releasedUs! - f.stoppedUs!) / 1000).toFixed(2)} ms after the stop`).join("; ")
          : `released before the stop: ${early.map((f) => `step ${f.step}`).join(", ")}`,
  });
  const ended = faults.filter((f) => f.resumedUs !== undefined);
  const short = ended.filter((f) => f.resumedUs! - f.startUs < f.durationMs * 1000);
  checks.push({
    name: "pauses lasted their duration",
    ok: short.length === 0,
    detail:
      ended.length === 0
        ? "no pause ended within the run"
        : ended.map((f) => `step ${f.step}: ${((f.resumedUs! - f.startUs) / 1000).toFixed(1)} ms of ${f.durationMs} ms`).join("; "),
  });
  return checks;
}

function frozenCheck(faults: readonly FaultLog[], history: readonly HistoryEvent[]): RunCheck {
  // A stopped client stamps nothing: no event of a paused client between its stop and its SIGCONT.
  const leaks: string[] = [];
  for (const f of faults) {
    if (f.stoppedUs === undefined) continue;
    const until = f.resumedUs ?? Infinity;
    const during = history.filter((e) => e.process === f.target && e.f !== "lapse" && e.timeUs > f.stoppedUs! && e.timeUs < until);
    if (during.length > 0)
      leaks.push(
        `step ${f.step}: ${f.target} recorded ${during.length} event(s) while stopped, first ${during[0]!.f} ${during[0]!.type} at ${during[0]!.timeUs} µs`,
      );
  }
  return {
    name: "paused clients were frozen",
    ok: leaks.length === 0,
    detail:
      faults.length === 0 ? "no pause fired" : leaks.length === 0 ? "no paused process recorded anything between its stop and its SIGCONT" : leaks.join("; "),
  };
}

function stampOrderCheck(clients: ReadonlyArray<{ id: string; misordered: number }>): RunCheck {
  const misordered = clients.filter((c) => c.misordered > 0);
  return {
    name: "client events in stamp order",
    ok: misordered.length === 0,
    detail:
      misordered.length === 0
        ? "every client's events arrived in the order it stamped them"
        : misordered.map((c) => `${c.id}: ${c.misordered} out of order`).join(", "),
  };
}

function oneAtATimeCheck(history: readonly HistoryEvent[]): RunCheck {
  const overlapping: string[] = [];
  const open = new Map<string, string>();
  for (const e of history) {
    if (e.process === NEMESIS || e.process === RESOURCE_ID || e.f === "lapse") continue;
    if (e.type === "invoke") {
      if (open.has(e.process)) overlapping.push(`${e.process}: ${e.f} invoked at ${e.timeUs} µs while ${open.get(e.process)} was outstanding`);
      open.set(e.process, e.f);
    } else if (open.get(e.process) === e.f) open.delete(e.process);
  }
  return {
    name: "one operation at a time per client",
    ok: overlapping.length === 0,
    detail: overlapping.length === 0 ? "no client had two operations outstanding" : overlapping.slice(0, 3).join("; "),
  };
}

/** Informational: steps whose trigger never happened (the simulator would not fire them either). */
function firedCheck(plan: RealPlan, allFaults: readonly FaultLog[]): RunCheck {
  const fired = new Set(allFaults.map((f) => f.step));
  const unfired = plan.faults.filter((pf) => !fired.has(pf.index));
  return {
    name: "fault steps fired",
    ok: true,
    detail:
      plan.faults.length === 0
        ? "the scenario has no fault steps"
        : unfired.length === 0
          ? `all ${plan.faults.length} fired`
          : `${plan.faults.length - unfired.length} of ${plan.faults.length} fired; never triggered: ${unfired.map((pf) => `step ${pf.index}`).join(", ")}`,
  };
}
