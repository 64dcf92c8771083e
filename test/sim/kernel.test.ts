import { describe, expect, it } from "vitest";
import { Simulation, type Message } from "../../sim/simulation.js";
import { SimLimitError } from "../../sim/errors.js";
import { Rng } from "../../sim/rng.js";

/** A process that logs what it receives, with the true and local times. */
function recorder(sim: Simulation, id: string, log: string[], opts = {}) {
  return sim.addProcess(id, "server", opts, (ctx, restarted) => ({
    onMessage(from: string, msg: Message) {
      log.push(`${sim.nowUs} ${id}<-${from} ${msg.type}${restarted ? " (restarted)" : ""}`);
    },
  }));
}

describe("Simulation kernel", () => {
  it("delivers with base latency plus seeded jitter, FIFO per link", () => {
    const sim = new Simulation({ seed: "s", network: { latencyUsBase: 1000, latencyUsJitter: 500 } });
    const log: string[] = [];
    const a = recorder(sim, "a", log);
    recorder(sim, "b", log);
    for (let i = 0; i < 20; i++) a.send("b", { type: `m${i}` });
    sim.run(10_000);
    expect(log).toHaveLength(20);
    const times = log.map((l) => Number(l.split(" ")[0]));
    for (const t of times) expect(t).toBeGreaterThanOrEqual(1000);
    for (const t of times) expect(t).toBeLessThanOrEqual(1500);
    expect(log.map((l) => l.split(" ")[2])).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
  });

  it("reorders messages when links are not FIFO", () => {
    const sim = new Simulation({ seed: "s", network: { latencyUsBase: 1000, latencyUsJitter: 900, fifo: false } });
    const log: string[] = [];
    const a = recorder(sim, "a", log);
    recorder(sim, "b", log);
    for (let i = 0; i < 30; i++) a.send("b", { type: `m${i}` });
    sim.run(10_000);
    expect(log.map((l) => l.split(" ")[2])).not.toEqual(Array.from({ length: 30 }, (_, i) => `m${i}`));
  });

  it("drops messages on cut directed links only, including those in flight", () => {
    const sim = new Simulation({ seed: "s", network: { latencyUsBase: 1000, latencyUsJitter: 0 } });
    const log: string[] = [];
    const a = recorder(sim, "a", log);
    const b = recorder(sim, "b", log);
    a.send("b", { type: "in-flight" });
    sim.network.cutLink("a", "b");
    a.send("b", { type: "cut" });
    b.send("a", { type: "reverse-ok" });
    sim.run(5_000);
    expect(log).toEqual(["1000 a<-b reverse-ok"]);
    sim.network.healLink("a", "b");
    a.send("b", { type: "healed" });
    sim.run(10_000);
    expect(log).toContain("6000 b<-a healed");
  });

  it("loses messages at the configured rate", () => {
    const sim = new Simulation({ seed: "s", network: { lossRate: 0.3 } });
    const log: string[] = [];
    const a = recorder(sim, "a", log);
    recorder(sim, "b", log);
    for (let i = 0; i < 1000; i++) a.send("b", { type: "x" });
    sim.run(100_000);
    expect(log.length).toBeGreaterThan(600);
    expect(log.length).toBeLessThan(800);
  });

  it("fires timers by the process's monotonic clock, drift included", () => {
    const sim = new Simulation({ seed: "s" });
    const fired: number[] = [];
    const fast = sim.addProcess("fast", "server", { wall: { driftPpm: 100_000 } }, () => ({}));
    const exact = sim.addProcess("exact", "server", {}, () => ({}));
    fast.setTimer(1100, () => fired.push(sim.nowUs));
    exact.setTimer(1000, () => fired.push(sim.nowUs));
    sim.run(5_000_000);
    expect(fired).toEqual([1_000_000, 1_000_000]);
  });

  it("a wall-clock jump moves the wall reading but not monotonic time or timers", () => {
    const sim = new Simulation({ seed: "s" });
    const p = sim.addProcess("p", "server", {}, () => ({}));
    let firedAt = -1;
    p.setTimer(1000, () => (firedAt = sim.nowUs));
    sim.run(100_000);
    sim.process("p").wall.jump(sim.nowUs, 60_000_000);
    expect(p.wallMs()).toBe(60_100);
    expect(p.monoMs()).toBe(100);
    sim.run(2_000_000);
    expect(firedAt).toBe(1_000_000);
  });

  it("pause freezes a process: input queues, clocks keep running, queued input is handled on resume in order", () => {
    const sim = new Simulation({ seed: "s", network: { latencyUsBase: 1000, latencyUsJitter: 0 } });
    const log: string[] = [];
    const a = recorder(sim, "a", log);
    const b = sim.addProcess("b", "server", {}, (ctx) => ({
      onMessage(from: string, msg: Message) {
        log.push(`${sim.nowUs} b<-${from} ${msg.type} wall=${ctx.wallMs()}`);
      },
    }));
    let timerAt = -1;
    b.setTimer(5, () => (timerAt = sim.nowUs));
    sim.pause("b", 10_000);
    a.send("b", { type: "one" });
    a.send("b", { type: "two" });
    sim.run(9_999);
    expect(log).toEqual([]);
    expect(sim.process("b").queuedWhilePaused).toBe(3);
    sim.run(20_000);
    expect(timerAt).toBe(10_000);
    expect(log).toEqual(["10000 b<-a one wall=10", "10000 b<-a two wall=10"]);
  });

  it("crash drops volatile state, timers and input; restart builds a new behaviour and keeps the disk", () => {
    const sim = new Simulation({ seed: "s", network: { latencyUsBase: 1000, latencyUsJitter: 0 } });
    const log: string[] = [];
    const a = recorder(sim, "a", log);
    const b = recorder(sim, "b", log);
    b.disk.set("term", 7);
    let timerFired = false;
    b.setTimer(1, () => (timerFired = true));
    a.send("b", { type: "lost" });
    sim.crash("b");
    sim.run(5000);
    expect(log).toEqual([]);
    expect(timerFired).toBe(false);
    sim.restart("b");
    a.send("b", { type: "after" });
    sim.run(10_000);
    expect(log).toEqual(["6000 b<-a after (restarted)"]);
    expect(b.disk.get("term")).toBe(7);
  });

  it("RPC calls resolve with the reply or time out on the caller's clock", () => {
    const sim = new Simulation({ seed: "s", network: { latencyUsBase: 1000, latencyUsJitter: 0 } });
    sim.addProcess("srv", "server", {}, (ctx) => ({
      onMessage(from: string, msg: Message) {
        if (msg.type === "ping") ctx.reply(from, msg, { type: "pong" });
      },
    }));
    const c = sim.addProcess("c", "client", {}, () => ({}));
    const results: string[] = [];
    c.spawn(
      (function* () {
        const r1 = yield* c.call("srv", { type: "ping" }, 100);
        results.push(`${sim.nowUs}:${r1.ok ? r1.reply.type : r1.error}`);
        sim.network.cutLink("c", "srv");
        const r2 = yield* c.call("srv", { type: "ping" }, 100);
        results.push(`${sim.nowUs}:${r2.ok ? r2.reply.type : r2.error}`);
      })(),
    );
    sim.run(1_000_000);
    expect(results).toEqual(["2000:pong", "102000:timeout"]);
  });

  it("a process's kept route to a peer sees conditions, faults, delay, cuts and heals set after it first sent", () => {
    const sim = new Simulation({ seed: "s", network: { latencyUsBase: 1000, latencyUsJitter: 0 } });
    const log: string[] = [];
    const a = recorder(sim, "a", log);
    recorder(sim, "b", log);
    const at = (us: number, f: () => void): void => sim.schedule(us, f);
    at(0, () => a.send("b", { type: "plain" }));
    at(10_000, () => {
      sim.network.setCondition("a", "b", { latencyUsBase: 3000 });
      a.send("b", { type: "condition" });
    });
    at(20_000, () => {
      sim.network.setExtraDelay("a", "b", 500);
      a.send("b", { type: "delayed" });
    });
    at(30_000, () => {
      sim.network.setLink("a", "b", { lossRate: 1 });
      a.send("b", { type: "lost" });
      sim.network.setLink("a", "b", { lossRate: 0 });
      sim.network.setExtraDelay("a", "b", 0);
      sim.network.cutLink("a", "b");
      a.send("b", { type: "cut" });
      sim.network.healAll();
      a.send("b", { type: "healed" });
    });
    sim.run(100_000);
    expect(log).toEqual(["1000 b<-a plain", "13000 b<-a condition", "23500 b<-a delayed", "33000 b<-a healed"]);
    expect(sim.network.cutLinks()).toEqual([]);
  });

  it("a cancelled timer, or a call's timeout once its reply came, costs no event", () => {
    const sim = new Simulation({ seed: "s", network: { latencyUsBase: 1000, latencyUsJitter: 0 } });
    const fired: string[] = [];
    const a = sim.addProcess("a", "client", {}, () => ({}));
    sim.addProcess("b", "server", {}, (ctx) => ({
      onMessage(from: string, msg: Message) {
        ctx.reply(from, msg, { type: "pong" });
      },
    }));
    const t = a.setTimer(50, () => fired.push("cancelled"));
    a.setTimer(60, () => fired.push("kept"));
    a.cancelTimer(t);
    a.spawn(
      (function* () {
        const r = yield* a.call("b", { type: "ping" }, 100);
        fired.push(r.ok ? "reply" : "timeout");
      })(),
    );
    sim.run(1_000_000);
    expect(fired).toEqual(["reply", "kept"]);
    // The ping, the pong and the kept timer: neither cancelled timer came due as an event.
    expect(sim.eventsRun).toBe(3);
    expect(sim.queueLength).toBe(0);
  });

  it("stops with a clear error at its bounds", () => {
    const sim = new Simulation({ seed: "s", limits: { eventsMax: 100 } });
    const p = sim.addProcess("p", "server", {}, () => ({}));
    const loop = () => p.setTimer(1, loop);
    loop();
    let err: unknown;
    try {
      sim.run(10_000_000);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SimLimitError);
    expect((err as Error).message).toMatch(/eventsMax = 100/);
    const q = new Simulation({ seed: "s", limits: { queueLengthMax: 10 } });
    const r = q.addProcess("r", "server", {}, () => ({}));
    expect(() => {
      for (let i = 0; i < 11; i++) r.setTimer(1, () => {});
    }).toThrow(/queueLengthMax/);
    const t = new Simulation({ seed: "s", limits: { timeUsMax: 1000 } });
    expect(() => t.run(5000)).toThrow(/timeUsMax/);
  });
});

describe("Rng", () => {
  it("is reproducible by seed and independent per named fork", () => {
    const a = new Rng("x");
    const b = new Rng("x");
    expect([a.float(), a.int(0, 9), a.token()]).toEqual([b.float(), b.int(0, 9), b.token()]);
    const root1 = new Rng("x");
    const root2 = new Rng("x");
    root2.float(); // using the parent's stream does not change a fork's stream
    expect(root1.fork("net").float()).toBe(root2.fork("net").float());
    expect(new Rng("x").fork("net").float()).not.toBe(new Rng("x").fork("disk").float());
    expect(new Rng("x").float()).not.toBe(new Rng("y").float());
  });
});
