import type { FaultStep } from "../faults/types.js";

/**
 * An attack: a fault defined by its intent ("pause the holder past its lease, just
 * before its write"), compiled for one lock into the scenario file format. Targets are
 * roles and durations are multiples of the lease this lock uses, so one attack means
 * the same on every design and adapter, or is refused for a lock with the reason.
 */
export interface LockUnderTest {
  /** A registered design name (designs/index.ts); "library" for a user adapter. */
  design: string;
  designOptions?: Record<string, unknown>;
  /** What the user calls it in reports: the design name or the adapter. */
  label: string;
}

/** The scenario-file JSON an attack compiles to (scenarios/schema.ts parses and defaults it). */
export interface CompiledScenario {
  name: string;
  title: string;
  story: string;
  design: string;
  designOptions?: Record<string, unknown>;
  expect: "safe" | "unsafe";
  seed: number;
  durationMs: number;
  clients: Array<{ id: string; startMs: number; opsMax?: number; workMs?: number }>;
  workload: Record<string, unknown>;
  faults: FaultStep[];
  challenge: { kind: "overlapping-belief" | "expiry-handover" | "waiter-served" | "granted-during-release" } | { kind: "waiter-waited"; waitedMsMin?: number };
  network?: Record<string, unknown>;
}

export type Compiled = { ok: true; scenario: CompiledScenario } | { ok: false; refusal: string };

export interface Attack {
  name: string;
  title: string;
  /** What happens, in a few sentences. */
  story: string;
  /** Where the story comes from (paper, post, issue). */
  source: string;
  compile(lock: LockUnderTest): Compiled;
}
