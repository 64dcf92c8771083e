// Real mode's view of the designs: which it runs (a DesignEntry's `real`), and the plan of a
// scenario's design. The scenario's designOptions are parsed by the design's own parser, so
// defaults are the simulator's; each design's real-plan.ts (in its folder) refuses an option
// real mode cannot honour before anything starts, and says what it runs without.
import { InputError } from "../sim/errors.js";
import type { FaultStep, Scenario } from "../scenarios/schema.js";
import { faultDef, mechanismOf } from "../faults/index.js";
import { DESIGNS, designByName } from "../designs/index.js";
import type { RealDesignPlan } from "../designs/real-plan.js";

export const REAL_DESIGN_NAMES = DESIGNS.filter((d) => d.real !== undefined).map((d) => d.name);

/** Every server id of the plan, in start order. */
export function designServerIds(d: RealDesignPlan): string[] {
  return d.cluster ? d.cluster.ids : [...d.redis.map((r) => r.id), ...(d.failover?.sentinels ?? [])];
}

/**
 * Does a network step cut links between two of the simulator's servers? Then the real
 * cluster has the simulator's size: which side of a partition holds a majority is counted on it.
 */
function cutsServerLinks(s: Scenario, simServers: readonly string[]): boolean {
  const server = (id: string): boolean => simServers.includes(id);
  const processes = [...simServers, ...s.clients.map((c) => c.id)];
  const cut = (f: FaultStep) => (mechanismOf(f.kind) === "proxy-cut" ? (faultDef(f.kind).links?.(f, processes) ?? []) : []);
  return s.faults.some((f) => cut(f).some(([a, b]) => server(a) && server(b)));
}

/** The real-mode plan of the scenario's design; InputError if real mode cannot run it as written. */
export function planDesign(s: Scenario, notApplied: string[]): RealDesignPlan {
  const entry = designByName(s.design);
  const real = entry?.real;
  if (!entry || !real) {
    throw new InputError(
      s.file,
      "design",
      `real mode cannot run this: design "${s.design}" has no real-mode mapping yet; real mode runs ${REAL_DESIGN_NAMES.join(", ")}`,
    );
  }
  const options = entry.parseOptions(s.designOptions, s.file, "designOptions");
  const servers = entry.profile(options).servers;
  const input = { file: s.file, design: s.design, designOptions: s.designOptions, waitMs: s.workload.waitMs, cutsServerLinks: cutsServerLinks(s, servers) };
  return real.plan(input, options, notApplied);
}
