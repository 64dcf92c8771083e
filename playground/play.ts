import { parseScenario, type Scenario } from "../scenarios/schema.js";
import { checkJsonDepth } from "../sim/json-depth.js";
import { historyToJsonl, type HistoryEvent } from "../sim/history.js";
import { runCheckers, type Verdicts } from "../checkers/run-all.js";
import { renderRunReport } from "../reports/run-report.js";
import type { RunRecord } from "../reports/types.js";
import { runScenario } from "../harness/runner.js";
import { checkContextFor } from "../harness/check-context.js";
import { buildRecord } from "../harness/artifacts.js";

/**
 * One playground run: the edited scenario JSON parsed and run exactly as `lockstep run
 * <file> --seed N` parses and runs it (the same validator, runner, checkers and record),
 * then rendered by the run report's renderer. Pure in (raw, seed): it runs in the
 * browser tab and in Node alike.
 */
export interface RawScenario {
  name: string;
  design: string;
  seed?: number;
  durationMs: number;
  designOptions?: unknown;
  workload: { fencing?: boolean; ttlMs?: number; [k: string]: unknown };
  faults?: RawFault[];
  [k: string]: unknown;
}

export interface RawFault {
  kind: string;
  atMs?: number;
  on?: unknown;
  delayMs?: number;
  durationMs?: number;
  deltaMs?: number;
  target?: string;
  note?: string;
  [k: string]: unknown;
}

export interface PlaygroundScenario {
  name: string;
  /** As `lockstep run` names it: scenarios/<dir>/<name>.json. */
  file: string;
  raw: RawScenario;
  /** The debate claims this scenario tests (reports/debate-claims.ts). */
  claims: Array<{ id: string; who: string; claim: string }>;
}

/** What the builder embeds in the page. */
export interface PlaygroundData {
  scenarios: PlaygroundScenario[];
  designs: string[];
}

export interface PlayRun {
  record: RunRecord;
  history: HistoryEvent[];
  historyJsonl: string;
  reportHtml: string;
  /** Per fault step (by index in the scenario's faults), when it started in true time, ms; null if it never fired. */
  faultStartsMs: Array<number | null>;
}

export function runEdited(raw: RawScenario, seed: number, file: string): PlayRun {
  const scenario = parsed(raw, file);
  const run = runScenario(scenario, seed);
  const verdicts = runCheckers(run.history, checkContextFor(scenario));
  const record = buildRecord(scenario, seed, run, verdicts);
  return {
    record,
    history: run.history,
    historyJsonl: historyToJsonl(run.history),
    reportHtml: renderRunReport(record, run.history),
    faultStartsMs: faultStarts(run.history, raw.faults?.length ?? 0),
  };
}

/** Only the verdicts, for the verdict line while a handle is dragged (no report drawn). */
export function verdictsOf(raw: RawScenario, seed: number, file: string): Verdicts {
  const scenario = parsed(raw, file);
  return runCheckers(runScenario(scenario, seed).history, checkContextFor(scenario));
}

function parsed(raw: RawScenario, file: string): Scenario {
  // A copy: parsing fills in defaults, and the page keeps editing its own object.
  const copy = JSON.parse(JSON.stringify(raw)) as unknown;
  checkJsonDepth(copy, file);
  return parseScenario(copy, file);
}

/** The nemesis records each step's start (value.step, phase "start" or none): the editor anchors its bars there. */
export function faultStarts(history: readonly HistoryEvent[], steps: number): Array<number | null> {
  const out: Array<number | null> = new Array(steps).fill(null);
  for (const e of history) {
    if (e.process !== "nemesis") continue;
    const v = e.value as { step?: number; phase?: string } | undefined;
    if (!v || typeof v.step !== "number" || v.step >= steps || out[v.step] !== null) continue;
    if (v.phase === undefined || v.phase === "start") out[v.step] = e.timeUs / 1000;
  }
  return out;
}
