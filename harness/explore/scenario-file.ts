import type { FaultStep, Scenario } from "../../scenarios/schema.js";

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
  const dur = f.durationMs !== undefined ? ` for ${f.durationMs} ms` : "";
  switch (f.kind) {
    case "pause":
      return `${when}${delay}: pause ${f.target}${dur}`;
    case "crash":
      return `${when}${delay}: crash ${f.target}${f.durationMs !== undefined ? `, restart after ${f.durationMs} ms` : " (stays down)"}`;
    case "restart":
      return `${when}${delay}: restart ${f.target}`;
    case "clock-jump":
      return `${when}${delay}: ${f.target}'s wall clock jumps ${f.deltaMs! > 0 ? "+" : ""}${f.deltaMs} ms`;
    case "clock-drift":
      return `${when}${delay}: ${f.target}'s clocks drift ${f.driftPpm} ppm${dur}`;
    case "partition":
      return `${when}${delay}: partition ${f.groups!.map((g) => `[${g.join(", ")}]`).join(f.oneWay ? " -/-> " : " | ")}${dur}`;
    case "isolate":
      return `${when}${delay}: isolate ${f.target}${dur}`;
    case "loss":
      return `${when}${delay}: lose ${Math.round(f.lossRate! * 100)}% of messages on ${f.links!.map(([a, b]) => `${a}->${b}`).join(", ")}${dur}`;
    case "delay":
      return `${when}${delay}: delay ${f.links!.map(([a, b]) => `${a}->${b}`).join(", ")} by ${f.extraMs} ms${dur}`;
    case "cut":
      return `${when}${delay}: cut ${f.links!.map(([a, b]) => `${a}->${b}`).join(", ")}${dur}`;
    case "heal":
      return `${when}${delay}: heal the network`;
  }
}
