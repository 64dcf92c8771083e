import { inputErrorOf } from "../helpers/input-error.js";
import { describe, expect, it } from "vitest";
import { redlock, parseRedlockOptions } from "../../designs/redlock/design.js";
import { parseFailoverOptions } from "../../designs/redis-failover/design.js";
import { parseSetnxOptions } from "../../designs/redis-setnx/design.js";
import type { RedisServer } from "../../services/redis/server.js";
import type { AcquireResult, ExtendResult, LockClient } from "../../designs/types.js";
import { Simulation, type ProcessContext } from "../../sim/simulation.js";
import type { Fiber } from "../../sim/fiber.js";
import { parseScenario } from "../../scenarios/schema.js";
import { runScenario } from "../../harness/runner.js";

/** Five Redlock nodes and one client, no jitter: timings are exact. */
function world(options: Record<string, unknown> = {}) {
  const sim = new Simulation({ seed: "redlock", network: { latencyUsBase: 500, latencyUsJitter: 0 } });
  const o = parseRedlockOptions(options, "test", "designOptions");
  const inst = redlock.setup({ sim, processOptions: () => ({}) }, o);
  const ctx = sim.addProcess("c1", "client", {}, () => ({}));
  const client = inst.createClient(ctx);
  const store = (id: string) => (sim.contexts.get(id)!.behavior as unknown as RedisServer).store;
  function go<T>(atMs: number, f: (c: LockClient) => Fiber<T>): { value?: T; doneUs?: number } {
    const box: { value?: T; doneUs?: number } = {};
    sim.schedule(atMs * 1000, () =>
      ctx.spawn(f(client), (r) => {
        box.value = r.value;
        box.doneUs = sim.nowUs;
      }),
    );
    return box;
  }
  return { sim, ctx: ctx as ProcessContext, client, store, go, nodes: inst.serverIds };
}

const okGrant = (r: AcquireResult | undefined) => {
  expect(r?.outcome).toBe("ok");
  return (r as Extract<AcquireResult, { outcome: "ok" }>).grant;
};

describe("the Redlock client (node-redlock variant)", () => {
  it("sets the same random value on all five nodes and computes validity = TTL − elapsed − drift", () => {
    const w = world();
    const a = w.go(0, (c) => c.acquire("L", { ttlMs: 1_000, waitMs: 0 }));
    w.sim.run(5_000);
    const g = okGrant(a.value);
    for (const n of w.nodes) expect(w.store(n).effectOf("L").entry?.value).toBe(g.secret);
    // All five answer in 1 ms (two 0.5 ms hops); Date.now() is whole ms: 1000 − 1 − 12.
    expect(a.doneUs).toBe(1_000);
    expect(g.validityMs).toBe(987);
    expect(w.client.holds(g)).toBe(true);
  });

  it("a minority of votes: unlock every node, retry retryCount times after retryDelay ± retryJitter", () => {
    const w = world({ retryCount: 3, retryDelayMs: 200, retryJitterMs: 100 });
    for (const n of ["redis-3", "redis-4", "redis-5"]) w.sim.network.cutLink("c1", n);
    const a = w.go(0, (c) => c.acquire("L", { ttlMs: 1_000, waitMs: 0 }));
    w.sim.run(3_000_000);
    expect(a.value?.outcome).toBe("fail");
    const misses = w.sim.history.filter((e) => e.f === "redlock-miss");
    expect(misses).toHaveLength(4); // 1 + retryCount attempts
    for (const m of misses) expect(m.value).toMatchObject({ votes: 2, quorum: 3 });
    // Each attempt: 50 ms waiting for the unreachable nodes, 50 ms for the unlock round, then the delay.
    for (let i = 1; i < misses.length; i++) {
      const gapMs = (misses[i]!.timeUs - misses[i - 1]!.timeUs) / 1000;
      expect(gapMs).toBeGreaterThanOrEqual(50 + 50 + 100);
      expect(gapMs).toBeLessThanOrEqual(50 + 50 + 300 + 1);
    }
    // The two nodes that voted have been unlocked.
    expect(w.store("redis-1").effectOf("L").entry).toBe(null);
    expect(w.store("redis-2").effectOf("L").entry).toBe(null);
  });

  it("measures elapsed time on the wall clock (Date.now()): a forward jump during the votes voids the lock", () => {
    for (const clock of ["wall", "monotonic"] as const) {
      const w = world({ clock, retryCount: 0 });
      // The client's wall clock steps 2 s forward while its SETs are in flight.
      w.sim.schedule(200, () => w.sim.process("c1").wall.jump(w.sim.nowUs, 2_000_000));
      const a = w.go(0, (c) => c.acquire("L", { ttlMs: 1_000, waitMs: 0 }));
      w.sim.run(1_000_000);
      expect(a.value?.outcome).toBe(clock === "wall" ? "fail" : "ok");
    }
  });

  it("extends on a quorum; refuses to extend an expired lock", () => {
    const w = world();
    const a = w.go(0, (c) => c.acquire("L", { ttlMs: 1_000, waitMs: 0 }));
    let ext: { value?: ExtendResult } = {};
    let late: { value?: ExtendResult } = {};
    w.sim.schedule(500_000, () => {
      const g = okGrant(a.value);
      ext = w.go(0, (c) => c.extend(g, 2_000));
    });
    w.sim.run(600_000);
    expect(ext.value).toEqual({ outcome: "ok", validityMs: 2_000 - 1 - 22 });
    for (const n of w.nodes) expect(w.store(n).execute({ cmd: "PTTL", key: "L" }, (w.sim.process(n).wall.read(w.sim.nowUs) / 1000) | 0)).toBeGreaterThan(1_800);
    w.sim.schedule(3_000_000, () => {
      late = w.go(0, (c) => c.extend(okGrant(a.value), 2_000));
    });
    w.sim.run(3_100_000);
    expect(late.value).toMatchObject({ outcome: "fail", reason: expect.stringMatching(/already-expired/) });
  });

  it("release deletes only its own value, on every node", () => {
    const w = world();
    const a = w.go(0, (c) => c.acquire("L", { ttlMs: 1_000, waitMs: 0 }));
    w.sim.run(5_000);
    const g = okGrant(a.value);
    // Someone else's key on redis-5 (as after an expiry and re-grant there).
    w.store("redis-5").execute({ cmd: "DEL", key: "L" }, 0);
    w.store("redis-5").execute({ cmd: "SET", key: "L", value: "other", pxMs: 10_000 }, 0);
    const r = w.go(6, (c) => c.release(g));
    w.sim.run(20_000);
    expect(r.value).toEqual({ outcome: "ok", released: true });
    expect(w.client.holds(g)).toBe(false);
    for (const n of ["redis-1", "redis-2", "redis-3", "redis-4"]) expect(w.store(n).effectOf("L").entry).toBe(null);
    expect(w.store("redis-5").effectOf("L").entry?.value).toBe("other");
  });
});

describe("the seed's Redlock loop (variant seed-000)", () => {
  it("sets the nodes one after another and checks only elapsed < TTL", () => {
    const w = world({ variant: "seed-000" });
    const a = w.go(0, (c) => c.acquire("L", { ttlMs: 1_000, waitMs: 0 }));
    w.sim.run(50_000);
    const g = okGrant(a.value);
    expect(a.doneUs).toBe(5_000); // five sequential 1 ms round trips
    expect(g.validityMs).toBe(1_000 - 5); // no drift term
  });

  it("accepts an acquisition that node-redlock refuses: elapsed between TTL − drift and TTL", () => {
    const outcomes: Record<string, string | undefined> = {};
    for (const variant of ["seed-000", "node-redlock"]) {
      const w = world({ variant, requestTimeoutMs: 2_000, retryCount: 0 });
      w.sim.network.setExtraDelay("redis-5", "c1", 990_000);
      const a = w.go(0, (c) => c.acquire("L", { ttlMs: 1_000, waitMs: 0 }));
      w.sim.run(3_000_000);
      outcomes[variant] = a.value?.outcome;
    }
    expect(outcomes).toEqual({ "seed-000": "ok", "node-redlock": "fail" });
  });
});

describe("bad options for the Redis designs", () => {
  const err = inputErrorOf;

  it("a quorum larger than N", () => {
    const e = err(() => parseRedlockOptions({ nodes: 5, quorum: 6 }, "s.json", "designOptions"));
    expect(e.message).toBe("s.json: designOptions.quorum: expected at most the number of nodes (5), got 6");
  });

  it("an unknown persistence mode, for every Redis design", () => {
    for (const parse of [parseRedlockOptions, parseFailoverOptions, parseSetnxOptions]) {
      const e = err(() => parse({ persistence: "rdb" }, "s.json", "designOptions"));
      expect(e.field).toBe("designOptions.persistence");
      expect(e.message).toMatch(/expected one of "none", "everysec", "always", got "rdb"/);
    }
  });

  it("other out-of-range options name their field", () => {
    expect(err(() => parseRedlockOptions({ nodes: 0 }, "s.json", "designOptions")).field).toBe("designOptions.nodes");
    expect(err(() => parseRedlockOptions({ driftFactor: -0.1 }, "s.json", "designOptions")).field).toBe("designOptions.driftFactor");
    expect(err(() => parseRedlockOptions({ retryCount: 1.5 }, "s.json", "designOptions")).field).toBe("designOptions.retryCount");
    expect(err(() => parseRedlockOptions({ variant: "redlock-rb" }, "s.json", "designOptions")).field).toBe("designOptions.variant");
    expect(err(() => parseRedlockOptions({ quorumm: 3 }, "s.json", "designOptions")).message).toMatch(/unknown field/);
    expect(err(() => parseFailoverOptions({ downAfterMs: 100, sentinelPingMs: 500 }, "s.json", "designOptions")).field).toBe("designOptions.sentinelPingMs");
  });

  it("a negative TTL, and a fault aimed at a node the design does not have", () => {
    const base = { name: "t", story: "s", design: "redlock", expect: "safe", durationMs: 100, clients: 1 };
    const e = err(() => parseScenario({ ...base, workload: { ttlMs: -5 } }, "s.json"));
    expect(e.field).toBe("workload.ttlMs");
    const s = parseScenario({ ...base, workload: { ttlMs: 100 }, faults: [{ atMs: 1, kind: "crash", target: "redis-6" }] }, "s.json");
    const e2 = err(() => runScenario(s, 1));
    expect(e2.field).toBe("faults[0].target");
    expect(e2.message).toMatch(/unknown process "redis-6"; expected one of: redis-1, redis-2, redis-3, redis-4, redis-5/);
  });
});
