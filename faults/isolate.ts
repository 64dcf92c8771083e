import { defineFault, exploreAt, exploreLasting, forDuration, type Link, partitionLabel } from "./def.js";

export const isolate = defineFault({
  name: "isolate",
  doc: "cut every link to and from `target` for durationMs",
  fields: [],
  needsTarget: true,
  parse() {},
  links(step, processes) {
    const t = step.target!;
    const links: Link[] = [];
    for (const other of processes) if (other !== t) links.push([t, other], [other, t]);
    return links;
  },
  apply(ctx, step) {
    const t = step.target!;
    const all = [...ctx.sim.processes.keys()];
    ctx.cutFor(isolate.links!(step, all), { groups: [[t], all.filter((x) => x !== t)] });
  },
  real: { mechanism: "proxy-cut" },
  semantics: { instant: false, holdsUpProgress: true },
  looks: { family: "partition", timeline: { at: "network", band: "sides", label: partitionLabel } },
  explore: {
    rank: 6,
    arb(fc, s) {
      if (s.servers.length === 0 || (s.serverOnly && s.servers.length < 2)) return undefined;
      return fc.record({
        kind: fc.constant("isolate"),
        atMs: exploreAt(fc, s),
        delayMs: fc.constant(0),
        target: fc.constantFrom(...s.servers),
        durationMs: exploreLasting(fc, 2 * s.ttlMs),
      });
    },
  },
  report: {
    start: (m) => `network partition${m.oneWay ? " (one way)" : ""}: ${(m.groups ?? []).map((g) => `{${g.join(", ")}}`).join(" | ")}${m.dur}${m.note}`,
    end: () => "the partition ends",
  },
  describe: (s) => `isolate ${s.target}${forDuration(s)}`,
});
