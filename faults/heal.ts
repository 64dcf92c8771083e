import { defineFault } from "./def.js";

export const heal = defineFault({
  name: "heal",
  doc: "heal every cut link at once",
  fields: [],
  needsTarget: false,
  parse() {},
  links: () => [],
  apply(ctx) {
    ctx.sim.network.healAll();
    ctx.note("start", []);
  },
  real: { mechanism: "proxy-heal" },
  semantics: { instant: true, holdsUpProgress: false, ends: "all" },
  looks: { family: "partition", timeline: { at: "network", style: "healing", label: () => "heal" } },
  report: { start: (m) => `the network heals${m.note}` },
  describe: () => "heal the network",
});
