import { createHash } from "node:crypto";
import type { Scenario, Expectation } from "../../scenarios/schema.js";
import type { Outcome } from "../../checkers/run-all.js";
import { CHECKERS } from "../../checkers/index.js";
import { isFailing, type SeedResult } from "./run-seed.js";
import { wilson95 } from "./wilson.js";
import { addRunAvailability, emptySweepAvailability, type SweepAvailability } from "../../reports/availability.js";
import type { SeedRange, Shard } from "./range.js";

/** A count of runs out of `runs`, with its rate and 95% Wilson interval. */
export interface RateCi {
  violations: number;
  /** Runs whose verdict was "unknown" (could not decide). */
  unknown: number;
  /**
   * Runs in which the checker had nothing to judge (n/a: no waits, no replica states);
   * absent when none. The rate and interval are over the other runs, the judged ones.
   */
  notApplicable?: number;
  rate: number;
  ci95: [number, number];
}

/**
 * summary.json of a sweep (format documented in docs/sweeps.md). Everything but
 * `shards` and `execution` is a pure function of (scenario, seed range, failing-seed
 * limit): a sweep split into shards and merged gives the same fields as one sweep.
 */
export interface SweepSummary {
  format: "lockstep-sweep-summary/1";
  lockstep: { version: string };
  scenario: { name: string; file: string; design: string; expect: Expectation; digest: string };
  /** The whole sweep's range, shards included. */
  seeds: SeedRange;
  runs: number;
  /** Whether `runs` covers every seed of the range (false: a merge of some shards only). */
  complete: boolean;
  /** Present when the sweep was interrupted part-way: `merge` refuses it; `resume` finishes it. */
  partial?: true;
  resume?: string;
  /** Composed safety / liveness verdicts. */
  safety: RateCi;
  liveness: RateCi;
  /** Per checker, in registry order. */
  checkers: Record<string, RateCi>;
  outcomes: Partial<Record<Outcome, number>>;
  /** Availability summed over the runs (absent in summaries written before it existed). */
  availability?: SweepAvailability;
  expected: { verdict: Expectation; matched: number; rate: number };
  /** Seeds where some checker found a violation: how many, and the first `limit` in seed order. */
  failingSeeds: { count: number; first: number[]; limit: number };
  /** Seeds whose outcome was not the expected verdict. */
  unexpectedSeeds: { count: number; first: number[]; limit: number };
  /** Replay command of the first failing seed (or of the first unexpected one). */
  replay?: string;
  /** The slices this summary covers (an unsharded sweep: [1/1]). */
  shards: Shard[];
  /** How it ran: not part of the result. */
  execution: { workers: number[]; wallMs: number; reports: Array<{ seed: number; dir: string }> };
}

/** The fields that must agree between a merged and an unsharded sweep. */
export function resultFields(s: SweepSummary): Omit<SweepSummary, "shards" | "execution"> {
  const { shards: _s, execution: _e, ...rest } = s;
  return rest;
}

/** A digest of the scenario's content (not its path), so merge can tell two scenarios apart. */
export function scenarioDigest(s: Scenario): string {
  const { file: _file, ...content } = s;
  return createHash("sha256").update(JSON.stringify(content)).digest("hex").slice(0, 16);
}

/** Outcomes in a fixed order, so summary.json text does not depend on which seed came first. */
export const OUTCOMES: readonly Outcome[] = ["safe", "unsafe", "unsafe-but-fenced", "liveness-loss", "not-challenged", "unknown"];

export function rateCi(violations: number, unknown: number, runs: number, notApplicable = 0): RateCi {
  const judged = runs - notApplicable;
  return {
    violations,
    unknown,
    ...(notApplicable > 0 ? { notApplicable } : {}),
    rate: judged === 0 ? 0 : violations / judged,
    ci95: wilson95(violations, judged),
  };
}

/** Runs in which every checker of `kind` had nothing to judge: the composed verdict of that kind is n/a there. */
function kindNotApplicable(r: SeedResult, kind: "safety" | "liveness"): boolean {
  const names = CHECKERS.filter((c) => c.kind === kind).map((c) => c.name);
  return names.length > 0 && names.every((n) => r.notApplicable?.includes(n) === true);
}

export interface SummaryInput {
  version: string;
  scenario: Scenario;
  range: SeedRange;
  shard: Shard;
  results: readonly SeedResult[];
  limit: number;
  replay: (seed: number) => string;
  workers: number;
  wallMs: number;
  reports: Array<{ seed: number; dir: string }>;
}

/** Aggregate seed results (any order in, seed order used). */
export function summarize(i: SummaryInput): SweepSummary {
  const results = [...i.results].sort((a, b) => a.seed - b.seed);
  const runs = results.length;
  const checkerNames: string[] = [];
  for (const r of results) for (const c of Object.keys(r.checkers)) if (!checkerNames.includes(c)) checkerNames.push(c);
  const count = (pred: (r: SeedResult) => boolean): number => results.reduce((n, r) => n + (pred(r) ? 1 : 0), 0);
  const checkers: Record<string, RateCi> = {};
  for (const c of checkerNames) {
    checkers[c] = rateCi(
      count((r) => r.checkers[c] === false),
      count((r) => r.checkers[c] === "unknown"),
      runs,
      count((r) => r.notApplicable?.includes(c) === true),
    );
  }
  const outcomes: Partial<Record<Outcome, number>> = {};
  for (const o of OUTCOMES) {
    const n = count((r) => r.outcome === o);
    if (n > 0) outcomes[o] = n;
  }
  const failing = results.filter(isFailing).map((r) => r.seed);
  const unexpected = results.filter((r) => !r.expectationMet).map((r) => r.seed);
  const matched = runs - unexpected.length;
  const replaySeed = failing[0] ?? unexpected[0];
  return {
    format: "lockstep-sweep-summary/1",
    lockstep: { version: i.version },
    scenario: {
      name: i.scenario.name,
      file: i.scenario.file,
      design: i.scenario.design,
      expect: i.scenario.expect,
      digest: scenarioDigest(i.scenario),
    },
    seeds: { from: i.range.from, to: i.range.to },
    runs,
    complete: runs === i.range.to - i.range.from + 1,
    safety: rateCi(
      count((r) => r.safety === false),
      count((r) => r.safety === "unknown"),
      runs,
      count((r) => kindNotApplicable(r, "safety")),
    ),
    liveness: rateCi(
      count((r) => r.liveness === false),
      count((r) => r.liveness === "unknown"),
      runs,
      count((r) => kindNotApplicable(r, "liveness")),
    ),
    checkers,
    outcomes,
    availability: results.reduce((acc, r) => addRunAvailability(acc, r.availability), emptySweepAvailability()),
    expected: { verdict: i.scenario.expect, matched, rate: runs === 0 ? 0 : matched / runs },
    failingSeeds: { count: failing.length, first: failing.slice(0, i.limit), limit: i.limit },
    unexpectedSeeds: { count: unexpected.length, first: unexpected.slice(0, i.limit), limit: i.limit },
    ...(replaySeed !== undefined ? { replay: i.replay(replaySeed) } : {}),
    shards: [i.shard],
    execution: { workers: [i.workers], wallMs: i.wallMs, reports: i.reports },
  };
}
