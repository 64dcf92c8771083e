import { conditionFor, defineFault, exploreAny, exploreAt, exploreLasting, forDuration, linkList, parseLinks, type Link } from "./def.js";

export const loss = defineFault({
  name: "loss",
  doc: "drop each message on `links` with probability lossRate for durationMs",
  fields: ["links", "lossRate"],
  needsTarget: false,
  parse(f, step) {
    step.links = parseLinks(f);
    step.lossRate = f.number("lossRate", { min: 0, max: 1 });
  },
  links: (step) => step.links!,
  apply(ctx, step) {
    conditionFor(ctx, step, "lossRate", step.lossRate!);
  },
  real: { mechanism: "proxy-condition", does: "lose chunks TCP's way (late by an RTO)" },
  semantics: { instant: false, holdsUpProgress: true },
  looks: { family: "loss", timeline: { at: "network", label: (m) => "loss " + m.num("lossRate") + ": " + m.who } },
  explore: {
    rank: 8,
    arb(fc, s) {
      const any = exploreAny(s);
      if (any.length < 2) return undefined;
      return fc
        .record({
          link: fc.tuple(fc.constantFrom(...any), fc.constantFrom(...any)).filter(([a, b]) => a !== b),
          both: fc.boolean(),
          lossPct: fc.integer({ min: 10, max: 100 }),
          atMs: exploreAt(fc, s),
          durationMs: exploreLasting(fc, 2 * s.ttlMs),
        })
        .map(({ link: [a, b], both, lossPct, atMs, durationMs }) => ({
          kind: "loss",
          atMs,
          delayMs: 0,
          links: (both
            ? [
                [a, b],
                [b, a],
              ]
            : [[a, b]]) as Link[],
          lossRate: lossPct / 100,
          durationMs,
        }));
    },
  },
  report: { start: (m) => `messages between ${m.who} are lost at rate ${m.num("lossRate")}${m.dur}${m.note}` },
  describe: (s) => `lose ${Math.round(s.lossRate! * 100)}% of messages on ${linkList(s.links!)}${forDuration(s)}`,
});
