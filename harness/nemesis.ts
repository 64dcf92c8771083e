import { fastCheck } from "./lazy-fast-check.js";
import type { FaultStep, NemesisSpec } from "../scenarios/schema.js";
import { faultScheduleArb } from "./explore/arbitraries.js";
import type { Rng } from "../sim/rng.js";
import { faultDef } from "../faults/index.js";

/**
 * The random nemesis: draws a scenario's extra fault steps from the run's seed, with
 * the arbitraries `lockstep explore` uses, so the same seed gives the same schedule
 * and the schedule is plain FaultStep data (written into results.json and the report).
 * fast-check is given an explicit seed from the run's own stream: it never reads the
 * host's randomness here.
 */
export interface NemesisWorld {
  servers: readonly string[];
  clients: readonly string[];
  ttlMs: number;
}

export function drawNemesis(spec: NemesisSpec, world: NemesisWorld, rng: Rng): FaultStep[] {
  const arb = faultScheduleArb({
    servers: world.servers,
    clients: world.clients,
    durationMs: spec.stopMs - spec.startMs,
    ttlMs: world.ttlMs,
    serverOnly: spec.scope === "servers",
    stepsMax: spec.stepsMax,
  });
  const [drawn] = fastCheck().sample(arb, { seed: rng.int(0, 0x7fffffff), numRuns: 1 });
  return drawn!
    .filter((st) => !spec.healing || !faultDef(st.kind).persistsWithoutDuration || st.durationMs !== undefined)
    .map((st) => ({ ...st, atMs: (st.atMs ?? 0) + spec.startMs, note: `drawn by the nemesis` }));
}
