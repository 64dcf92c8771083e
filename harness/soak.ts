import { runScenario, type RunOutput } from "./runner.js";
import { checkContextFor } from "./check-context.js";
import { replayCommand } from "./replay-command.js";
import { OnlineVerdicts } from "../checkers/run-online.js";
import { CheckerThread } from "./soak-checkers.js";
import type { Verdicts } from "../checkers/run-all.js";
import { keptForCheckers } from "../checkers/needed-events.js";
import { InputError } from "../sim/errors.js";
import { DRAIN_MS, EVENTS_MAX_CEILING, SIM_TIME_MS_MAX_CEILING } from "../sim/limits.js";
import type { HistoryEvent } from "../sim/history.js";
import type { Scenario } from "../scenarios/schema.js";

/**
 * A long run (`run --duration`): the scenario's workload for `durationMs` of simulated
 * time, its history streamed and never held, every checker judging it online
 * (checkers/run-online.ts) in memory bounded by the clients and locks, not the run's
 * length. The scenario's scripted faults keep their times; its nemesis draws its window
 * again every scenario length (NemesisSpec.repeatEveryMs) through the run.
 * Only the last TAIL_EVENTS_MAX events the checkers read are kept, for the report
 * (RunMeta.historyTail says so when that is not all of them).
 */
export const TAIL_EVENTS_MAX = 20_000;

export interface SoakOptions {
  durationMs: number;
  /** Every event as it is recorded (history.jsonl). */
  historySink?: (e: HistoryEvent) => void;
  /** Called as simulated time passes, at most every 1% of the run. */
  progress?: (simMs: number, durationMs: number) => void;
  /**
   * Judge in a thread of its own (harness/soak-checkers.ts; the default), so the run and
   * its checking each have a core; false judges in this thread. The verdicts are the same.
   */
  checkerThread?: boolean;
}

export interface SoakOutput {
  run: RunOutput;
  verdicts: Verdicts;
  /** The last events the checkers read, in order. */
  tail: HistoryEvent[];
  replay: string;
}

/** "24h", "90m", "30s", "1500ms", "2d", or a number of ms. */
export function parseDurationText(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  const unitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  const ms = m ? Math.round(Number(m[1]) * unitMs[m[2] ?? "ms"]!) : NaN;
  const maxMs = SIM_TIME_MS_MAX_CEILING - DRAIN_MS;
  if (!Number.isFinite(ms) || ms < 1 || ms > maxMs) {
    throw new InputError("<arg>", flag, `expected a duration as 90m, 24h or 2d, from 1ms to ${maxMs}ms (30 days less the ${DRAIN_MS} ms drain), got "${text}"`);
  }
  return ms;
}

export function runSoak(s: Scenario, seed: number, o: SoakOptions): SoakOutput {
  // A nemesis goes on through the run: its window again every scenario's length, unless it says otherwise.
  const nemesis = s.nemesis && { repeatEveryMs: s.durationMs, ...s.nemesis };
  const scenario: Scenario = { ...s, durationMs: o.durationMs, ...(nemesis ? { nemesis } : {}) };
  const online = o.checkerThread === false ? new OnlineVerdicts(checkContextFor(scenario)) : new CheckerThread(checkContextFor(scenario));
  const keep = keptForCheckers(s.clients.map((c) => c.id));
  const tail: HistoryEvent[] = [];
  let nextUs = 0;
  let trimmed = false;
  const stepUs = (o.durationMs * 1000) / 100;
  const sink = (e: HistoryEvent): void => {
    o.historySink?.(e);
    if (e.timeUs >= nextUs) {
      nextUs = e.timeUs + stepUs;
      o.progress?.(e.timeUs / 1000, o.durationMs);
    }
    if (!keep(e)) return;
    online.push(e);
    tail.push(e);
    if (tail.length <= 2 * TAIL_EVENTS_MAX) return;
    tail.splice(0, tail.length - TAIL_EVENTS_MAX);
    trimmed = true;
  };
  // The bounds a long run needs: its own span, and events without the history's memory.
  const limits = { eventsMax: EVENTS_MAX_CEILING, timeUsMax: (o.durationMs + DRAIN_MS) * 1000 };
  let run: RunOutput;
  try {
    run = runScenario(scenario, seed, limits, { historySink: sink, retainHistory: false });
  } catch (err) {
    if (online instanceof CheckerThread) online.close();
    throw err;
  }
  const kept = tail.slice(-TAIL_EVENTS_MAX);
  if (trimmed || kept.length < tail.length) run.meta.historyTail = { events: kept.length, fromUs: kept[0]?.timeUs ?? 0 };
  return { run, verdicts: online.result(), tail: kept, replay: `${replayCommand(s, seed)} --duration ${o.durationMs}ms` };
}
