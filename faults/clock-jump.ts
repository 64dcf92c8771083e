import { defineFault, exploreAny, exploreAt } from "./def.js";

export const clockJump = defineFault({
  name: "clock-jump",
  doc: "`target`'s wall clock jumps by deltaMs (an NTP step); its monotonic clock does not",
  fields: ["deltaMs"],
  needsTarget: true,
  parse(f, step) {
    step.deltaMs = f.number("deltaMs");
  },
  apply(ctx, step) {
    const { sim } = ctx;
    const t = step.target!;
    const p = sim.process(t);
    p.wall.jump(sim.nowUs, step.deltaMs! * 1000);
    ctx.note("start", [t], { deltaMs: step.deltaMs, offsetUs: p.wall.offsetAt(sim.nowUs) });
  },
  real: {
    mechanism: "clock-step",
    limits: "a client's jump is real (libfaketime) and a redis-server's is emulated (PTTL shift)",
    serverClock: true,
  },
  semantics: { instant: true, holdsUpProgress: false },
  looks: {
    family: "clock",
    familyByRole: true,
    timeline: {
      at: "point",
      style: "diamond",
      onClockChart: true,
      label: (m) => "clock " + (m.num("deltaMs")! >= 0 ? "+" : "−") + m.fmtDur(Math.abs(m.num("deltaMs")!) * 1000),
    },
    playgroundSize: { field: "deltaMs", handle: "jump", name: "clock jump", column: "jump (ms)", signed: true },
  },
  explore: {
    rank: 2,
    arb(fc, s) {
      const any = exploreAny(s);
      if (any.length === 0) return undefined;
      const twoTtl = 2 * s.ttlMs;
      return fc.record({
        kind: fc.constant("clock-jump"),
        atMs: exploreAt(fc, s),
        delayMs: fc.constant(0),
        target: fc.constantFrom(...any),
        deltaMs: fc.integer({ min: -twoTtl, max: twoTtl }).filter((d) => d !== 0),
      });
    },
  },
  report: {
    start: (m) => `${m.who}'s wall clock jumps ${m.num("deltaMs")! >= 0 ? "forward" : "back"} by ${m.fmtMs(Math.abs(m.num("deltaMs") ?? 0))}${m.note}`,
  },
  describe: (s) => `${s.target}'s wall clock jumps ${s.deltaMs! > 0 ? "+" : ""}${s.deltaMs} ms`,
});
