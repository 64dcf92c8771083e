import { defineFault, exploreAny, exploreAt, exploreLasting, forDuration } from "./def.js";

export const clockDrift = defineFault({
  name: "clock-drift",
  doc: "`target`'s clocks (wall and monotonic) run driftPpm fast or slow; back to their old rate after durationMs",
  fields: ["driftPpm"],
  needsTarget: true,
  parse(f, step) {
    step.driftPpm = f.number("driftPpm", { min: -500_000, max: 500_000 });
  },
  apply(ctx, step) {
    const { sim } = ctx;
    const t = step.target!;
    const p = sim.process(t);
    const before = p.wall.driftPpm;
    p.wall.setDrift(sim.nowUs, step.driftPpm!);
    p.mono.setDrift(sim.nowUs, step.driftPpm!);
    ctx.note("start", [t], { driftPpm: step.driftPpm });
    ctx.later(() => {
      p.wall.setDrift(sim.nowUs, before);
      p.mono.setDrift(sim.nowUs, before);
      ctx.note("end", [t], { driftPpm: before });
    });
  },
  real: {
    refused:
      "a client's libfaketime rate runs from its process's start (a rate changed mid-run would jump its clock too); a client's drift from the start is clocks.<client>.driftPpm; drift steps are not in real mode yet",
    serverClock: true,
  },
  semantics: { instant: false, holdsUpProgress: false },
  looks: { family: "clock", familyByRole: true, timeline: { at: "span", band: "clock", label: (m) => "drift " + m.num("driftPpm") + " ppm" } },
  persistsWithoutDuration: true,
  explore: {
    rank: 3,
    arb(fc, s) {
      const any = exploreAny(s);
      if (any.length === 0) return undefined;
      return fc.record({
        kind: fc.constant("clock-drift"),
        atMs: exploreAt(fc, s),
        delayMs: fc.constant(0),
        target: fc.constantFrom(...any),
        driftPpm: fc.integer({ min: -200_000, max: 200_000 }).filter((d) => d !== 0),
        durationMs: exploreLasting(fc, s.durationMs),
      });
    },
  },
  report: { start: (m) => `${m.who}'s clock drifts at ${m.num("driftPpm")} ppm${m.dur}${m.note}` },
  describe: (s) => `${s.target}'s clocks drift ${s.driftPpm} ppm${forDuration(s)}`,
});
