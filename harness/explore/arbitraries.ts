import type { Arbitrary } from "fast-check";
import { fastCheck } from "../lazy-fast-check.js";
import type { FaultStep, WorkloadSpec } from "../../scenarios/schema.js";
import type { FaultSpace } from "../../faults/def.js";
import { exploreChoices } from "../../faults/index.js";

/**
 * fast-check arbitraries for fault schedules and small workload variations. Every
 * value shrinks towards "less": fewer steps, earlier times, shorter faults, smaller
 * jumps, the base workload. Steps are timed (atMs), so a schedule is plain data
 * that a scenario file can hold. Each fault kind's arbitrary is in its own file
 * (faults/<kind>.ts); the registry orders them.
 */
export type { FaultSpace } from "../../faults/def.js";

/** One fault step; only the kinds the space allows (a partition needs two processes to split). */
export function faultStepArb(s: FaultSpace): Arbitrary<FaultStep> {
  return fastCheck().oneof(...(exploreChoices(fastCheck(), s) as Array<Arbitrary<FaultStep>>));
}

/** A schedule: up to `stepsMax` steps, in time order (the order a report shows them in). */
export function faultScheduleArb(s: FaultSpace): Arbitrary<FaultStep[]> {
  const fc = fastCheck();
  return fc.array(faultStepArb(s), { maxLength: s.stepsMax }).map(sortByTime);
}

export function sortByTime(steps: readonly FaultStep[]): FaultStep[] {
  return [...steps].sort((a, b) => (a.atMs ?? 0) - (b.atMs ?? 0));
}

/** Workload variations: each field either the base's (nil, what it shrinks to) or a drawn value. */
export interface WorkloadTweak {
  ttlMs?: number;
  workMs?: number;
  thinkMs?: number;
}

export function workloadTweakArb(base: WorkloadSpec): Arbitrary<WorkloadTweak> {
  const fc = fastCheck();
  const opt = <T>(a: Arbitrary<T>) => fc.option(a, { nil: undefined });
  return fc.record({
    ttlMs: opt(fc.integer({ min: Math.max(50, Math.round(base.ttlMs / 4)), max: base.ttlMs })),
    workMs: opt(fc.integer({ min: 0, max: 50 })),
    thinkMs: opt(fc.integer({ min: 0, max: 50 })),
  });
}

export function applyTweak(base: WorkloadSpec, t: WorkloadTweak): WorkloadSpec {
  return {
    ...base,
    ...(t.ttlMs !== undefined ? { ttlMs: t.ttlMs } : {}),
    ...(t.workMs !== undefined ? { workMs: t.workMs } : {}),
    ...(t.thinkMs !== undefined ? { thinkMs: t.thinkMs } : {}),
  };
}

/** What explore draws per run: the simulation seed, the schedule, the workload variation. */
export interface Exploration {
  seed: number;
  faults: FaultStep[];
  workload: WorkloadTweak;
}

export function explorationArb(space: FaultSpace, base: WorkloadSpec): Arbitrary<Exploration> {
  const fc = fastCheck();
  return fc.record({
    seed: fc.integer({ min: 1, max: 1_000_000 }),
    faults: faultScheduleArb(space),
    workload: workloadTweakArb(base),
  });
}
