import { defineFault, forDuration, linkList, parseLinks } from "./def.js";

export const cut = defineFault({
  name: "cut",
  doc: "cut the directed `links` ([from, to] pairs) for durationMs",
  fields: ["links"],
  needsTarget: false,
  parse(f, step) {
    step.links = parseLinks(f);
  },
  links: (step) => step.links!,
  apply(ctx, step) {
    ctx.cutFor(step.links!, {});
  },
  real: { mechanism: "proxy-cut" },
  semantics: { instant: false, holdsUpProgress: true },
  looks: { family: "loss", timeline: { at: "network", label: (m) => "links cut: " + m.who } },
  report: { start: (m) => `links between ${m.who} are cut${m.dur}${m.note}` },
  describe: (s) => `cut ${linkList(s.links!)}${forDuration(s)}`,
});
