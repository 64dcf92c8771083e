import type { LinkConditionSpec } from "../scenarios/schema.js";
import type { Verdicts } from "../checkers/run-all.js";
import type { SweepAvailability } from "./availability.js";
import type { ClientSpec, Expectation, FaultStep, WorkloadSpec } from "../scenarios/schema.js";

/**
 * What a run leaves behind besides its history: results.json is exactly this.
 * The run report renders a RunRecord together with the history.
 */
export interface RunRecord {
  lockstep: { version: string };
  scenario: {
    name: string;
    title: string;
    story: string;
    file: string;
    design: string;
    expect: Expectation;
    clients: ClientSpec[];
    workload: WorkloadSpec;
    faults: FaultStep[];
  };
  seed: number;
  /** The exact command that replays this run. */
  replay: string;
  meta: RunMeta;
  verdicts: Verdicts;
  /** Whether the outcome is the scenario's expected verdict. */
  expectationMet: boolean;
  /** What the command said about its input beside the verdicts (check's notes: raised :time values, no :time): the page says it too. */
  notes?: string[];
  /** Set on a counterexample an audit wrote: the finding it shows, and the audit's page relative to the report. */
  finding?: { cause: string; title: string; auditHref: string };
}

/** One cell of the design × scenario comparison: a sweep over N seeds. */
export interface CompareCell {
  design: string;
  scenario: string;
  runs: number;
  /** Runs in which the composed safety verdict was false. */
  violations: number;
  violationRate: number;
  /** 95% Wilson score interval of the violation rate. */
  ci95: [number, number];
  /** Per-checker violation counts. */
  byChecker: Record<string, number>;
  /** Runs in which the composed liveness verdict was false (a lock not granted in time; not a safety violation). */
  livenessLosses?: number;
  /** A failing seed and the path (relative to the comparison page) of its run report. */
  failingSeed?: number;
  failingReport?: string;
  /** The most frequent outcome over the seeds. */
  outcome?: string;
  /** Grants, failed acquires, idle time while someone waited, runs that were challenged (checkers/challenge.ts). */
  availability?: SweepAvailability;
}

export interface CompareMatrix {
  designs: string[];
  scenarios: string[];
  seeds: { from: number; to: number };
  cells: CompareCell[];
  /** Cells not run, and why (a scenario's faults name servers the design lacks, ...). */
  skipped?: Array<{ design: string; scenario: string; reason: string }>;
}

/** What a run was: its scenario, design, seed, processes and the faults it met (results.json's meta). */
export interface RunMeta {
  scenario: string;
  design: string;
  seed: number;
  durationMs: number;
  endUs: number;
  serverIds: string[];
  clientIds: string[];
  fencingTokens: boolean;
  /** The fault steps the run used: the scenario's, then any the nemesis drew. */
  faults: FaultStep[];
  eventsRun: number;
  network: Record<string, number>;
  /** The scenario's standing network conditions (`network.links`), when it has any. */
  conditions?: LinkConditionSpec[];
  /** Wall-clock offset from true time of each process, sampled over the run (µs). */
  clockSamples: Array<{ timeUs: number; offsetsUs: Record<string, number> }>;
  /** An imported history with no times: each event's timeUs is its position in the file, shown as #n, not µs. */
  timeIsOrder?: true;
  /** A long run checked online (`run --duration`): the report holds only its last events, from fromUs. */
  historyTail?: { events: number; fromUs: number };
}
