import type { RunMeta } from "../sim/runner.js";
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
  /** A failing seed and the path (relative to the comparison page) of its run report. */
  failingSeed?: number;
  failingReport?: string;
  /** The most frequent outcome over the seeds. */
  outcome?: string;
  /** Grants, failed acquires, idle time while someone waited, runs in which a second client got near a hold. */
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
