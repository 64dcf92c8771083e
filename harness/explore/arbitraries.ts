import type { Arbitrary } from "fast-check";
import { fastCheck } from "../lazy-fast-check.js";
import type { FaultStep, WorkloadSpec } from "../../scenarios/schema.js";

/**
 * fast-check arbitraries for fault schedules and small workload variations. Every
 * value shrinks towards "less": fewer steps, earlier times, shorter faults, smaller
 * jumps, the base workload. Steps are timed (atMs), so a schedule is plain data
 * that a scenario file can hold.
 */
export interface FaultSpace {
  /** The design's server processes (crash, restart, isolate act only on these). */
  servers: readonly string[];
  clients: readonly string[];
  /** Faults start within [0, durationMs). */
  durationMs: number;
  /** The lease length faults are scaled to: pauses and jumps up to twice it. */
  ttlMs: number;
  /** Only faults whose targets are servers: no client pauses, partitions among servers only. */
  serverOnly: boolean;
  stepsMax: number;
}

const at = (s: FaultSpace) => fastCheck().integer({ min: 0, max: Math.max(0, s.durationMs - 1) });
const lasting = (maxMs: number) => fastCheck().integer({ min: 1, max: Math.max(1, Math.round(maxMs)) });

/** One fault step; only the kinds the space allows (a partition needs two processes to split). */
export function faultStepArb(s: FaultSpace): Arbitrary<FaultStep> {
  const fc = fastCheck();
  const any = s.serverOnly ? [...s.servers] : [...s.servers, ...s.clients];
  const servers = [...s.servers];
  const twoTtl = 2 * s.ttlMs;
  const kinds: Array<Arbitrary<FaultStep>> = [];
  if (any.length > 0) {
    kinds.push(
      fc.record({ kind: fc.constant("pause" as const), atMs: at(s), delayMs: fc.constant(0), target: fc.constantFrom(...any), durationMs: lasting(twoTtl) }),
      fc.record({
        kind: fc.constant("clock-jump" as const),
        atMs: at(s),
        delayMs: fc.constant(0),
        target: fc.constantFrom(...any),
        deltaMs: fc.integer({ min: -twoTtl, max: twoTtl }).filter((d) => d !== 0),
      }),
      fc.record({
        kind: fc.constant("clock-drift" as const),
        atMs: at(s),
        delayMs: fc.constant(0),
        target: fc.constantFrom(...any),
        driftPpm: fc.integer({ min: -200_000, max: 200_000 }).filter((d) => d !== 0),
        durationMs: lasting(s.durationMs),
      }),
    );
  }
  if (servers.length > 0) {
    kinds.push(
      // A crash, restarted after durationMs; without durationMs it stays down (a failover's trigger).
      fc.record(
        { kind: fc.constant("crash" as const), atMs: at(s), delayMs: fc.constant(0), target: fc.constantFrom(...servers), durationMs: lasting(twoTtl) },
        { requiredKeys: ["kind", "atMs", "delayMs", "target"] },
      ),
      fc.record({ kind: fc.constant("restart" as const), atMs: at(s), delayMs: fc.constant(0), target: fc.constantFrom(...servers) }),
    );
    if (!s.serverOnly || servers.length > 1) {
      kinds.push(fc.record({ kind: fc.constant("isolate" as const), atMs: at(s), delayMs: fc.constant(0), target: fc.constantFrom(...servers), durationMs: lasting(twoTtl) }));
    }
  }
  if (any.length >= 2) {
    kinds.push(
      fc
        .record({ side: fc.subarray(any, { minLength: 1, maxLength: any.length - 1 }), atMs: at(s), durationMs: lasting(twoTtl), oneWay: fc.boolean() })
        .map(({ side, atMs, durationMs, oneWay }) => ({
          kind: "partition" as const,
          atMs,
          delayMs: 0,
          groups: [side, any.filter((x) => !side.includes(x))],
          ...(oneWay ? { oneWay } : {}),
          durationMs,
        })),
      fc
        .record({
          link: fc.tuple(fc.constantFrom(...any), fc.constantFrom(...any)).filter(([a, b]) => a !== b),
          both: fc.boolean(),
          lossPct: fc.integer({ min: 10, max: 100 }),
          atMs: at(s),
          durationMs: lasting(twoTtl),
        })
        .map(({ link: [a, b], both, lossPct, atMs, durationMs }) => ({
          kind: "loss" as const,
          atMs,
          delayMs: 0,
          links: (both ? [[a, b], [b, a]] : [[a, b]]) as Array<[string, string]>,
          lossRate: lossPct / 100,
          durationMs,
        })),
    );
  }
  return fc.oneof(...kinds);
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
