import { defineFault, flat, forDuration, linkList, parseLinks } from "./def.js";

export const delay = defineFault({
  name: "delay",
  doc: "add extraMs to every message on `links` for durationMs",
  fields: ["links", "extraMs"],
  needsTarget: false,
  parse(f, step) {
    step.links = parseLinks(f);
    step.extraMs = f.number("extraMs", { min: 0 });
  },
  links: (step) => step.links!,
  apply(ctx, step) {
    const { sim } = ctx;
    const links = step.links!;
    for (const [a, b] of links) sim.network.setExtraDelay(a, b, step.extraMs! * 1000);
    ctx.note("start", flat(links), { links, extraMs: step.extraMs });
    ctx.later(() => {
      for (const [a, b] of links) sim.network.setExtraDelay(a, b, 0);
      ctx.note("end", flat(links));
    });
  },
  real: { mechanism: "proxy-condition", does: "delay every chunk" },
  semantics: { instant: false, holdsUpProgress: true },
  looks: { family: "delay", timeline: { at: "network", label: (m) => "delay +" + m.fmtDur((m.num("extraMs") ?? 0) * 1000) + ": " + m.who } },
  report: { start: (m) => `messages between ${m.who} are delayed by ${m.num("extraMs")} ms${m.dur}${m.note}` },
  describe: (s) => `delay ${linkList(s.links!)} by ${s.extraMs} ms${forDuration(s)}`,
});
