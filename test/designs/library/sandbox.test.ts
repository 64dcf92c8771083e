/**
 * The sandbox realm: library code sees the simulated process's clocks, timers and
 * seeded randomness, promise chains finish within a turn, and every escape stops the
 * run with an error naming the call.
 */
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { Simulation, type ProcessContext } from "../../../sim/simulation.js";
import { Realm } from "../../../sim/sandbox/realm.js";
import { ModuleLoader } from "../../../sim/sandbox/module-loader.js";
import { SimulationEscapeError, LibraryError } from "../../../sim/sandbox/errors.js";

/** A realm on a real simulated process whose clock is skewed, so host time can't pass for it. */
function setup(offsetMs = 86_400_000) {
  const sim = new Simulation({ seed: "sandbox-test" });
  let ctx!: ProcessContext;
  sim.addProcess("c1", "client", { wall: { offsetUs: offsetMs * 1000 } }, (c) => {
    ctx = c;
    return {};
  });
  const rng = ctx.rng.fork("sandbox/1");
  const realm = new Realm({
    processId: "c1",
    wallMs: () => ctx.wallMs(),
    monoUs: () => ctx.monoUs(),
    setTimer: (us, fn) => {
      const h = ctx.setTimerUs(us, fn);
      return { cancel: () => ctx.cancelTimer(h) };
    },
    random: () => rng.float(),
  });
  const loader = new ModuleLoader(realm, new Map(), __dirname);
  const fn = (src: string): ((...a: unknown[]) => unknown) => realm.runScript(new vm.Script(`(${src})`)) as (...a: unknown[]) => unknown;
  /** Run an async function in the realm; the settled value (or "pending"). */
  const settle = (src: string, args: unknown[] = []): { state: string; value?: unknown } => {
    const out: { state: string; value?: unknown } = { state: "pending" };
    const f = fn(src);
    realm.enter("test", () => {
      const m = realm.membrane;
      m.settle(holding(realm, f), "f", m.list(...args.map((a) => m.toRealm(a))), (ok, value) => {
        out.state = ok ? "fulfilled" : "rejected";
        out.value = value;
      });
    });
    return out;
  };
  return { sim, ctx: () => ctx, realm, loader, fn, settle };
}

describe("sandbox realm: virtual time", () => {
  it("Date, performance.now and process.hrtime read the process's clocks, not the host's", () => {
    const { sim, ctx, settle } = setup(86_400_000);
    sim.run(2_500_000);
    const r = settle("async () => [Date.now(), new Date().getTime(), performance.now(), process.hrtime()[0], Number(process.hrtime.bigint() / 1000000n)]");
    expect(r.state).toBe("fulfilled");
    const [now, dateNow, perf, hrS, hrMs] = r.value as number[];
    expect(now).toBe(Math.floor(ctx().wallMs()));
    expect(dateNow).toBe(now);
    // A day ahead of the simulation's epoch: nothing near the host's clock.
    expect(now).toBeGreaterThanOrEqual(86_400_000 + 2_500);
    expect(now).toBeLessThan(86_400_000 + 2_600);
    expect(perf).toBeCloseTo(ctx().monoUs() / 1000, 6);
    expect(hrS).toBe(Math.floor(ctx().monoUs() / 1e6));
    expect(hrMs).toBe(Math.round(ctx().monoUs() / 1000));
  });

  it("a promise chain with several awaits finishes in one turn; setTimeout waits on the simulated clock", () => {
    const { sim, ctx, settle } = setup();
    const chain = settle("async () => { let n = 0; for (let i = 0; i < 5; i++) { await null; n++; } return n; }");
    expect(chain).toEqual({ state: "fulfilled", value: 5 });
    const timed = settle("async () => { const t0 = performance.now(); await new Promise((r) => setTimeout(r, 250)); return performance.now() - t0; }");
    expect(timed.state).toBe("pending");
    sim.run(249_000);
    expect(timed.state).toBe("pending");
    sim.run(251_000);
    expect(timed.state).toBe("fulfilled");
    expect(timed.value as number).toBeCloseTo(250, 3);
    expect(ctx().monoUs()).toBeGreaterThanOrEqual(250_000);
  });

  it("clearTimeout cancels; setInterval repeats; setImmediate runs as its own event", () => {
    const { sim, settle } = setup();
    const r = settle(`async () => {
      const seen = [];
      const t = setTimeout(() => seen.push("cancelled"), 10); clearTimeout(t);
      let k = 0; const iv = setInterval(() => { seen.push("tick" + (++k)); if (k === 3) clearInterval(iv); }, 10);
      setImmediate(() => seen.push("immediate"));
      await new Promise((r) => setTimeout(r, 100));
      return seen;
    }`);
    sim.run(200_000);
    expect(r).toEqual({ state: "fulfilled", value: ["immediate", "tick1", "tick2", "tick3"] });
  });
});

describe("sandbox realm: seeded randomness", () => {
  it("Math.random, crypto.randomBytes and randomUUID come from the process's seeded stream", () => {
    const draw = (): unknown => {
      const { realm, loader, settle } = setup();
      const crypto = realm.enter("load", () => loader.require("crypto", __filename));
      return settle("async (c) => [Math.random(), c.randomBytes(8).toString('hex'), c.randomUUID(), crypto.getRandomValues(new Uint8Array(4)).join()]", [
        crypto,
      ]).value;
    };
    const a = draw();
    const b = draw();
    expect(a).toEqual(b);
    const [x, hex, uuid] = a as [number, string, string];
    expect(x).toBeGreaterThanOrEqual(0);
    expect(x).toBeLessThan(1);
    expect(hex).toMatch(/^[0-9a-f]{16}$/);
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe("sandbox realm: escapes stop the run, named", () => {
  it.each([
    ['() => require("net").connect(6379)', 'require("net").connect'],
    ['() => require("child_process").spawn("ls")', 'require("child_process").spawn'],
    ['() => require("fs").writeFileSync("/tmp/x", "y")', 'require("fs").writeFileSync'],
    ["() => fetch('http://127.0.0.1/')", "fetch()"],
    ["() => process.exit(1)", "process.exit(1)"],
    ['() => performance.mark("x")', "performance.mark()"],
    ['() => require("sys")', 'require("sys")'],
    ['() => require("fs").readFileSync("/proc/uptime", "utf8")', 'require("fs").readFileSync("/proc/uptime")'],
  ])("%s", (src, call) => {
    const { realm, loader } = setup();
    const req = (s: string): unknown => loader.require(s, __filename);
    const f = realm.runScript(new vm.Script(`(function (require) { return ${src}; })`)) as (r: unknown) => () => unknown;
    let thrown: unknown;
    try {
      realm.enter("test", () => f(req)());
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(SimulationEscapeError);
    expect((thrown as SimulationEscapeError).call).toBe(call);
    expect((thrown as Error).message).toContain("c1");
  });

  it("an escape the library catches still stops the run at the end of the turn", () => {
    const { realm } = setup();
    const f = realm.runScript(new vm.Script("(async () => { try { await fetch('http://x/'); } catch {} return 'swallowed'; })")) as () => unknown;
    expect(() => realm.enter("test", () => realm.membrane.settle(holding(realm, f), "f", realm.membrane.list(), () => undefined))).toThrow(
      SimulationEscapeError,
    );
  });

  it("an exception thrown from a timer callback stops the run as a LibraryError", () => {
    const { sim, settle } = setup();
    settle("async () => { setTimeout(() => { throw new Error('boom'); }, 5); }");
    expect(() => sim.run(10_000)).toThrow(LibraryError);
  });
});

/** A realm object holding `f` as its method "f" (tests reach into the realm; lockstep's own code goes through the membrane). */
function holding(realm: Realm, f: unknown): unknown {
  const o = realm.runScript(new vm.Script("({})")) as { f?: unknown };
  o.f = f;
  return o;
}
