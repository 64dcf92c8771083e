import { defineFault, exploreAny, exploreAt, exploreLasting, forDuration } from "./def.js";

export const pause = defineFault({
  name: "pause",
  doc: "stop `target` for durationMs (a GC pause, SIGSTOP): it runs nothing, then resumes where it was",
  fields: [],
  needsTarget: true,
  parse(f, step) {
    step.durationMs = f.number("durationMs", { min: 0 });
  },
  apply(ctx, step) {
    const t = step.target!;
    ctx.note("start", [t], { durationMs: step.durationMs });
    ctx.sim.pause(t, step.durationMs! * 1000);
    ctx.later(() => ctx.note("end", [t]));
  },
  real: { mechanism: "stop-signal" },
  semantics: { instant: false, holdsUpProgress: true, stopsTarget: true },
  looks: {
    family: "pause",
    familyByRole: true,
    timeline: { at: "span", style: "hatched", label: (m) => "paused" + (m.durUs !== null ? " " + m.fmtDur(m.durUs) : "") },
  },
  explore: {
    rank: 1,
    arb(fc, s) {
      const any = exploreAny(s);
      if (any.length === 0) return undefined;
      return fc.record({
        kind: fc.constant("pause"),
        atMs: exploreAt(fc, s),
        delayMs: fc.constant(0),
        target: fc.constantFrom(...any),
        durationMs: exploreLasting(fc, 2 * s.ttlMs),
      });
    },
  },
  report: {
    start: (m) => `${m.who} is paused${m.dur}${m.note}`,
    end: (m) => `the pause of ${m.who} resumes`,
  },
  describe: (s) => `pause ${s.target}${forDuration(s)}`,
});
