import fc from "fast-check";
import type { FaultStep, Scenario } from "../../scenarios/schema.js";
import { referencedProcesses } from "../../scenarios/schema.js";

/**
 * Shrink a failing scenario that already exists (its faults may be triggered by
 * history events, which explore's arbitraries never draw, so fast-check cannot
 * replay it as one of its own values). The loop is fast-check's: try smaller
 * candidates in order, keep the first that still fails, start again; the numeric
 * candidates are fast-check's own integer shrinks. Candidates: drop a fault step,
 * drop a client, make a number (time, duration, jump, drift, delay) smaller.
 */
export interface ShrinkOptions {
  scenario: Scenario;
  seed: number;
  /** Runs spent at most. */
  runsMax: number;
  violates(scenario: Scenario, seed: number): boolean;
}

export interface ShrinkResult {
  scenario: Scenario;
  runs: number;
  /** Candidates accepted (each one a smaller failing scenario). */
  shrinks: number;
  /** Whether the loop stopped because no candidate was smaller, not for the budget. */
  minimal: boolean;
}

const NUMERIC: ReadonlyArray<keyof FaultStep> = ["durationMs", "deltaMs", "driftPpm", "extraMs", "delayMs", "atMs"];

/** fast-check's integer shrinks of v towards 0 (or towards `floor`), first few. */
function smallerInts(v: number, floor = 0, take = 6): number[] {
  if (!Number.isInteger(v) || v === floor) return [];
  const arb = v > floor ? fc.integer({ min: floor, max: v }) : fc.integer({ min: v, max: floor });
  return [...arb.shrink(v, undefined).take(take)].map((x) => x.value);
}

function* candidates(s: Scenario, numeric = true): Generator<Scenario> {
  for (let i = s.faults.length - 1; i >= 0; i--) yield { ...s, faults: s.faults.filter((_, j) => j !== i) };
  if (s.clients.length > 1) {
    for (let i = s.clients.length - 1; i >= 0; i--) {
      const c = { ...s, clients: s.clients.filter((_, j) => j !== i) };
      const gone = s.clients[i]!.id;
      if (!referencedProcesses(c).some((r) => r.id === gone)) yield c;
    }
  }
  for (let i = 0; numeric && i < s.faults.length; i++) {
    const step = s.faults[i]!;
    for (const key of NUMERIC) {
      const v = step[key];
      if (typeof v !== "number") continue;
      // A step that lasts must last a little (a 0 ms pause is no fault).
      const floor = key === "durationMs" ? 1 : 0;
      for (const x of smallerInts(v, floor)) {
        yield { ...s, faults: s.faults.map((st, j) => (j === i ? renoted(s, { ...st, [key]: x }) : st)) };
      }
    }
  }
}

const SHRUNK = " (shrunk: ";

/**
 * A step whose numbers shrank keeps the note it was written with ("pauses for 1.5x its
 * lease") and says its numbers now, as multiples of the lease the run uses (the
 * workload's ttlMs): a 1024 ms pause is 1.02x a 1000 ms lease, not 1.5x.
 */
function renoted(s: Scenario, st: FaultStep): FaultStep {
  if (st.note === undefined) return st;
  const ttlMs = s.workload.ttlMs;
  // The lengths a step has (atMs is a moment, not one); a 0 says nothing.
  const said = (["durationMs", "deltaMs", "extraMs", "delayMs"] as const)
    .filter((k) => typeof st[k] === "number" && st[k] !== 0)
    .map((k) => `${k} ${st[k]} ms = ${((st[k] as number) / ttlMs).toFixed(2)}x the ${ttlMs} ms lease`);
  if (typeof st.driftPpm === "number" && st.driftPpm !== 0) said.push(`driftPpm ${st.driftPpm}`);
  const cut = st.note.indexOf(SHRUNK);
  const original = cut >= 0 ? st.note.slice(0, cut) : st.note;
  return { ...st, note: said.length > 0 ? `${original}${SHRUNK}${said.join(", ")})` : original };
}

export function shrinkScenario(o: ShrinkOptions): ShrinkResult {
  let current = o.scenario;
  let runs = 0;
  let shrinks = 0;
  for (;;) {
    let smaller: Scenario | undefined;
    for (const c of candidates(current)) {
      if (runs >= o.runsMax) return { scenario: current, runs, shrinks, minimal: false };
      runs++;
      if (o.violates(c, o.seed)) {
        smaller = c;
        break;
      }
    }
    if (!smaller) return { scenario: current, runs, shrinks, minimal: true };
    current = smaller;
    shrinks++;
  }
}

export interface WidestShrinkOptions {
  scenario: Scenario;
  seed: number;
  /** Candidates tried at most. */
  runsMax: number;
  /** How wide the candidate's violation is, when it still shows what must be kept; undefined when it does not. */
  score(scenario: Scenario, seed: number): number | undefined;
  /**
   * Whether to make numbers smaller (times, durations) besides dropping steps and clients.
   * A counterexample meant to happen outside the simulator keeps the attack's numbers:
   * a 1 ms cut or a delay window cut to the bone fails to land on a real network.
   */
  numeric?: boolean;
}

/**
 * Shrink keeping the evidence wide: each round tries every smaller candidate (within
 * the budget) and moves to the one whose violation is widest, not the first that still
 * fails, so a user can still see it happen (a stale write accepted, holds that overlap
 * for many milliseconds) rather than a sliver only a model notices.
 */
export function shrinkWidest(o: WidestShrinkOptions): ShrinkResult {
  let current = o.scenario;
  let runs = 0;
  let shrinks = 0;
  for (;;) {
    let best: { s: Scenario; score: number } | undefined;
    let spent = false;
    for (const c of candidates(current, o.numeric ?? true)) {
      if (runs >= o.runsMax) {
        spent = true;
        break;
      }
      runs++;
      const score = o.score(c, o.seed);
      if (score !== undefined && (best === undefined || score > best.score)) best = { s: c, score };
    }
    if (best === undefined) return { scenario: current, runs, shrinks, minimal: !spent };
    current = best.s;
    shrinks++;
    if (spent) return { scenario: current, runs, shrinks, minimal: false };
  }
}
