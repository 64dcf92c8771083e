import type { FaultStep, Scenario } from "../../scenarios/schema.js";
import { faultDef } from "../../faults/index.js";

/** A Scenario as the JSON a scenario file holds (what parseScenario reads back). */
export function scenarioToJson(s: Scenario): Record<string, unknown> {
  const faults = s.faults.map((f) => {
    const out: Partial<FaultStep> = { ...f };
    if (out.delayMs === 0) delete out.delayMs;
    if (out.oneWay === false) delete out.oneWay;
    return out;
  });
  return {
    name: s.name,
    title: s.title,
    story: s.story,
    design: s.design,
    designOptions: s.designOptions,
    expect: s.expect,
    seed: s.seed,
    durationMs: s.durationMs,
    network: s.network,
    clocks: s.clocks,
    clients: s.clients,
    workload: s.workload,
    faults,
    checks: s.checks,
    ...(s.limits ? { limits: s.limits } : {}),
    ...(s.challenge ? { challenge: s.challenge } : {}),
  };
}

/** One line per fault step, for stories and terminal output. */
export function describeStep(f: FaultStep): string {
  const when = f.atMs !== undefined ? `at ${f.atMs} ms` : `on ${f.on!.process} ${f.on!.f} ${f.on!.type} #${f.on!.nth}`;
  const delay = f.delayMs ? ` +${f.delayMs} ms` : "";
  return `${when}${delay}: ${faultDef(f.kind).describe(f)}`;
}
