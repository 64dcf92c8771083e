import { defineFault, exploreAny, exploreAt, exploreLasting, forDuration, type Link, partitionLabel } from "./def.js";

export const partition = defineFault({
  name: "partition",
  doc: "cut every link between `groups` (oneWay: only from earlier groups to later ones) for durationMs",
  fields: ["groups", "oneWay"],
  needsTarget: false,
  parse(f, step) {
    const groups = f.array("groups");
    if (groups.length < 2 || groups.some((g) => !Array.isArray(g) || g.length === 0 || g.some((x) => typeof x !== "string"))) {
      f.fail("groups", "expected two or more non-empty lists of process ids");
    }
    step.groups = groups as string[][];
    step.oneWay = f.boolean("oneWay", false);
  },
  links(step) {
    const links: Link[] = [];
    const g = step.groups!;
    for (let a = 0; a < g.length; a++) {
      for (let b = 0; b < g.length; b++) {
        if (a === b || (step.oneWay && b < a)) continue;
        for (const x of g[a]!) for (const y of g[b]!) links.push([x, y]);
      }
    }
    return links;
  },
  apply(ctx, step) {
    ctx.cutFor(partition.links!(step, []), { groups: step.groups, oneWay: step.oneWay });
  },
  real: { mechanism: "proxy-cut" },
  semantics: { instant: false, holdsUpProgress: true },
  looks: { family: "partition", timeline: { at: "network", band: "sides", label: partitionLabel } },
  explore: {
    rank: 7,
    arb(fc, s) {
      const any = exploreAny(s);
      if (any.length < 2) return undefined;
      return fc
        .record({
          side: fc.subarray(any, { minLength: 1, maxLength: any.length - 1 }),
          atMs: exploreAt(fc, s),
          durationMs: exploreLasting(fc, 2 * s.ttlMs),
          oneWay: fc.boolean(),
        })
        .map(({ side, atMs, durationMs, oneWay }) => ({
          kind: "partition",
          atMs,
          delayMs: 0,
          groups: [side, any.filter((x) => !side.includes(x))],
          ...(oneWay ? { oneWay } : {}),
          durationMs,
        }));
    },
  },
  report: {
    start: (m) => `network partition${m.oneWay ? " (one way)" : ""}: ${(m.groups ?? []).map((g) => `{${g.join(", ")}}`).join(" | ")}${m.dur}${m.note}`,
    end: () => "the partition ends",
  },
  describe: (s) => `partition ${s.groups!.map((g) => `[${g.join(", ")}]`).join(s.oneWay ? " -/-> " : " | ")}${forDuration(s)}`,
});
