import { describe, expect, it } from "vitest";
import { Simulation, type Message, type RpcResult } from "../../sim/simulation.js";
import type { Fiber } from "../../sim/fiber.js";

/**
 * ctx.call and ctx.sleep return hand-written fibers (sim/wait-fibers.ts), yielded to the
 * fiber's run as kernel Waits: they must behave as the generators they replaced, driven
 * by `yield*` or spawned on their own, and mix with Suspend-style waits.
 */
function world() {
  const sim = new Simulation({ seed: "s", network: { latencyUsBase: 1000, latencyUsJitter: 0 } });
  sim.addProcess("srv", "server", {}, (ctx) => ({
    onMessage(from: string, msg: Message) {
      if (msg.type === "ping") ctx.reply(from, msg, { type: "pong", n: msg.n });
    },
  }));
  const c = sim.addProcess("c", "client", {}, () => ({}));
  return { sim, c };
}

describe("kernel wait fibers", () => {
  it("call and sleep under yield*, in order, with the reply or the timeout", () => {
    const { sim, c } = world();
    const log: string[] = [];
    function* body(): Fiber<string> {
      const r1 = yield* c.call("srv", { type: "ping", n: 1 }, 50);
      log.push(`${sim.nowUs} ${r1.ok ? r1.reply.n : "timeout"}`);
      yield* c.sleep(3);
      log.push(`${sim.nowUs} slept`);
      const r2 = yield* c.call("srv", { type: "nobody-answers" }, 5);
      log.push(`${sim.nowUs} ${r2.ok ? "reply" : r2.error}`);
      const mapped = yield* c.callAs("srv", { type: "ping", n: 2 }, 50, (r: RpcResult) => (r.ok ? `n=${r.reply.n}` : "none"));
      return mapped;
    }
    let done: string | undefined;
    c.spawn(body(), (r) => (done = r.value));
    sim.run(1_000_000);
    expect(log).toEqual(["2000 1", "5000 slept", "10000 timeout"]);
    expect(done).toBe("n=2");
    expect(sim.nowUs).toBe(1_000_000);
  });

  it("a call or a sleep spawned on its own is a whole fiber", () => {
    const { sim, c } = world();
    const results: unknown[] = [];
    c.spawn(c.call("srv", { type: "ping", n: 7 }, 50), (r) => results.push((r.value as RpcResult).ok));
    c.spawn(c.sleep(1), (r) => results.push(`slept ${sim.nowUs} ${String(r.value)}`));
    sim.run(100_000);
    expect(results).toEqual(["slept 1000 undefined", true]);
  });

  it("two fibers on one process wait at once without mixing up their waits", () => {
    const { sim, c } = world();
    const log: string[] = [];
    const worker = (name: string, sleepMs: number, n: number) =>
      (function* (): Fiber<void> {
        yield* c.sleep(sleepMs);
        const r = yield* c.call("srv", { type: "ping", n }, 50);
        log.push(`${sim.nowUs} ${name} ${r.ok ? r.reply.n : "timeout"}`);
      })();
    c.spawn(worker("a", 5, 1));
    c.spawn(worker("b", 1, 2));
    sim.run(100_000);
    expect(log).toEqual(["3000 b 2", "7000 a 1"]);
  });

  it("a crashed process's waiting fiber never resumes", () => {
    const { sim, c } = world();
    let resumed = false;
    c.spawn(
      (function* (): Fiber<void> {
        yield* c.sleep(5);
        resumed = true;
      })(),
    );
    sim.run(1000);
    sim.crash("c");
    sim.run(100_000);
    expect(resumed).toBe(false);
  });

  it("a sleep that ends during a pause resumes when the pause ends", () => {
    const { sim, c } = world();
    let wokeAt = -1;
    c.spawn(
      (function* (): Fiber<void> {
        yield* c.sleep(2);
        wokeAt = sim.nowUs;
      })(),
    );
    sim.pause("c", 10_000);
    sim.run(100_000);
    expect(wokeAt).toBe(10_000);
  });

  for (const [timeoutMs, want] of [
    [3, "ok"],
    [1.5, "timeout"],
  ] as const) {
    it(`a reply and a timeout both held by a pause are taken in arrival order (timeout ${timeoutMs} ms: ${want})`, () => {
      const { sim, c } = world();
      let got = "";
      let at = -1;
      c.spawn(
        (function* (): Fiber<void> {
          const r = yield* c.call("srv", { type: "ping", n: 1 }, timeoutMs);
          got = r.ok ? "ok" : r.error;
          at = sim.nowUs;
        })(),
      );
      // The reply comes at 2 ms, the timeout at 3 ms or 1.5 ms: both during the pause.
      sim.schedule(500, () => sim.pause("c", 9500));
      sim.run(100_000);
      expect(got).toBe(want);
      expect(at).toBe(10_000);
    });
  }
});
