import type { Scenario } from "../../scenarios/schema.js";
import { InputError } from "../../sim/errors.js";

/**
 * The scenario explore varies for a design: `--base` if given, else the design's
 * baseline (a scenario named *-baseline), else one of its fault-free safe scenarios,
 * else any of its scenarios with the faults taken out.
 */
export function pickBase(design: string, scenarios: readonly Scenario[]): Scenario {
  const mine = scenarios.filter((s) => s.design === design);
  const pick =
    mine.find((s) => s.name.endsWith("-baseline")) ??
    mine.find((s) => s.expect === "safe" && s.faults.length === 0) ??
    (mine[0] ? { ...mine[0], faults: [] } : undefined);
  if (!pick) {
    throw new InputError("<arg>", "--design", `no scenario uses design "${design}"; pass --base <scenario> to say what to vary`);
  }
  return pick;
}

export interface BaseShape {
  /** Longest run, ms: exploration runs are short so a budget of hundreds of runs stays cheap. */
  durationMsMax: number;
  /** Make the resource check fencing tokens. */
  fencing?: boolean;
}

/**
 * Fit a base scenario to exploration: at most `durationMsMax` long, with the lease
 * (and any extension) at most a quarter of the run so leases expire and renew
 * several times within it, no faults of its own, clients that run to the end.
 */
export function shapeBase(s: Scenario, o: BaseShape): Scenario {
  const durationMs = Math.min(s.durationMs, o.durationMsMax);
  const ttlMs = Math.max(50, Math.min(s.workload.ttlMs, Math.floor(durationMs / 4)));
  return {
    ...s,
    durationMs,
    faults: [],
    clients: s.clients.map(({ opsMax: _ops, ...c }) => ({ ...c, startMs: Math.min(c.startMs, Math.floor(durationMs / 4)) })),
    workload: {
      ...s.workload,
      ttlMs,
      extendTtlMs: s.workload.extendTtlMs > 0 ? Math.min(s.workload.extendTtlMs, ttlMs) : 0,
      ...(o.fencing ? { fencing: true } : {}),
    },
  };
}
