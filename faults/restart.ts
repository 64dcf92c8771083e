import { defineFault, exploreAt } from "./def.js";

export const restart = defineFault({
  name: "restart",
  doc: "restart `target` at once (a crash and recovery in one step)",
  fields: [],
  needsTarget: true,
  parse() {},
  apply(ctx, step) {
    const t = step.target!;
    ctx.sim.restart(t);
    ctx.note("start", [t]);
  },
  real: { mechanism: "sigkill-restart", limits: "real mode restarts servers, not clients, yet" },
  semantics: { instant: true, holdsUpProgress: false, ends: "lost-state" },
  looks: { family: "crash", timeline: { at: "point", style: "triangle", label: () => "restart" } },
  explore: {
    rank: 5,
    arb(fc, s) {
      if (s.servers.length === 0) return undefined;
      return fc.record({ kind: fc.constant("restart"), atMs: exploreAt(fc, s), delayMs: fc.constant(0), target: fc.constantFrom(...s.servers) });
    },
  },
  report: { start: (m) => `${m.who} restarts${m.note}` },
  describe: (s) => `restart ${s.target}`,
});
