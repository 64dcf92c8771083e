import { defineFault, exploreAt, exploreLasting } from "./def.js";

export const crash = defineFault({
  name: "crash",
  doc: "crash `target` (its volatile state lost, its disk kept to the last fsync); restarted after durationMs, or down to the end",
  fields: [],
  needsTarget: true,
  parse() {},
  apply(ctx, step) {
    const t = step.target!;
    ctx.note("start", [t]);
    ctx.sim.crash(t);
    ctx.later(() => {
      ctx.sim.restart(t);
      ctx.note("end", [t], { restarted: true });
    });
  },
  real: { mechanism: "sigkill", limits: "real mode crashes servers (a plain redis-server's host crash emulated by an AOF cut), not clients, yet" },
  semantics: { instant: false, holdsUpProgress: true, losesVolatileState: true },
  looks: { family: "crash", timeline: { at: "span", band: "down", label: () => "crashed" } },
  persistsWithoutDuration: true,
  explore: {
    rank: 4,
    arb(fc, s) {
      if (s.servers.length === 0) return undefined;
      // Restarted after durationMs; without durationMs it stays down (a failover's trigger).
      return fc.record(
        {
          kind: fc.constant("crash"),
          atMs: exploreAt(fc, s),
          delayMs: fc.constant(0),
          target: fc.constantFrom(...s.servers),
          durationMs: exploreLasting(fc, 2 * s.ttlMs),
        },
        { requiredKeys: ["kind", "atMs", "delayMs", "target"] },
      );
    },
  },
  report: {
    start: (m) => `${m.who} crashes${m.dur ? ` (down${m.dur})` : ""}${m.note}`,
    end: (m) => `${m.who} restarts`,
  },
  describe: (s) => `crash ${s.target}${s.durationMs !== undefined ? `, restart after ${s.durationMs} ms` : " (stays down)"}`,
});
