import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import type { HistoryEvent } from "../../sim/history.js";
import type { Scenario } from "../../scenarios/schema.js";
import { redlock, parseRedlockOptions } from "../../designs/redlock/design.js";
import type { RedisServer } from "../../services/redis/server.js";
import type { AcquireResult, ExtendResult, Grant } from "../../designs/types.js";
import { Simulation } from "../../sim/simulation.js";
import { sweep, sweepMessage, SWEEP_SEEDS } from "../helpers/scenario-sweep.js";

/**
 * node-redlock v4's extend shares _lock with acquire: an extension attempt that misses
 * the quorum unlocks every node and retries, and the caller hears of it only when the
 * retries are spent, its lock object unchanged. A rival acquires inside the holder's
 * validity (scenario redlock-extend-miss, found first by `lockstep explore --design redlock`).
 */
function run(s: Scenario, seed: number) {
  const r = runScenario(s, seed);
  const v = runCheckers(r.history, checkContextFor(s));
  const ev = (p: Partial<HistoryEvent>) => r.history.filter((e) => Object.entries(p).every(([k, x]) => (e as unknown as Record<string, unknown>)[k] === x));
  return { h: r.history, v, ev, checker: (c: string) => v.results.find((x) => x.checker === c)! };
}

describe("redlock-extend-miss", () => {
  const s = loadScenario("redlock-extend-miss");

  it(`${s.expect} on its own seed, for the reason its story gives`, () => {
    const c = run(s, s.seed);
    expect(c.v.outcome).toBe(s.expect);
    expect(c.v.outcome).toBe("unsafe");
    const w = (c.checker("mutual-exclusion").witness as Array<{ first: { process: string; endedBy: string }; second: { process: string } }>)[0]!;
    expect([w.first.process, w.second.process]).toEqual(["c1", "c2"]);
    // c1's first extension attempt got 2 of 5 votes; the ten retries found no key at all.
    const misses = c.ev({ process: "c1", f: "redlock-miss" }).map((e) => e.value as { op: string; attempt: number; votes: number });
    expect(misses.map((m) => m.op)).toEqual(Array(11).fill("extend"));
    expect(misses[0]!.votes).toBe(2);
    for (const m of misses.slice(1)) expect(m.votes).toBe(0);
    // c2 got the lock before c1's validity ran out and long before c1 heard its extend fail.
    const c2ok = c.ev({ process: "c2", type: "ok", f: "acquire" })[0]!;
    const c1lapse = c.ev({ process: "c1", f: "lapse" })[0]!;
    const c1fail = c.ev({ process: "c1", type: "fail", f: "extend" })[0]!;
    expect(c2ok.timeUs).toBeLessThan(c1lapse.timeUs);
    expect(c1lapse.timeUs).toBeLessThan(c1fail.timeUs);
    // Who wrote what: c1 never wrote under its grant; c2's write is the only one, and none is lost.
    expect(c.ev({ process: "c1", f: "write" })).toEqual([]);
    expect(c.ev({ f: "storage-write", type: "ok" }).map((e) => (e.value as { client: string }).client)).toEqual(["c2"]);
    expect(c.checker("lost-updates").valid).toBe(true);
    expect(c.checker("linearizability").valid).toBe(false);
  });

  it(`${s.expect} on each of ${SWEEP_SEEDS} seeds, mutual exclusion broken every time`, () => {
    const r = sweep(s);
    expect(r.unexpected, sweepMessage(s, r)).toEqual([]);
    expect(r.exclusionViolatedSeeds).toHaveLength(SWEEP_SEEDS);
  });

  it("needs the cut: without it the extension succeeds and no run is unsafe, nor even challenged", () => {
    const calm: Scenario = { ...s, name: "redlock-extend-miss-calm", faults: [] };
    for (let seed = 1; seed <= 20; seed++) {
      const c = run(calm, seed);
      // No fault, no overlap of beliefs: the lock was never put to the test.
      expect(c.v.safety, `seed ${seed}`).toBe(true);
      expect(c.v.outcome, `seed ${seed}`).toBe("not-challenged");
      expect(c.ev({ process: "c1", type: "ok", f: "extend" }), `seed ${seed}`).toHaveLength(1);
    }
  });
});

describe("the Redlock client's extend, attempt by attempt", () => {
  it("a missed attempt unlocks every node, the caller fails only after the retries, and its grant keeps its expiration", () => {
    const sim = new Simulation({ seed: "extend-miss", network: { latencyUsBase: 500, latencyUsJitter: 0 } });
    const inst = redlock.setup({ sim, processOptions: () => ({}) }, parseRedlockOptions({ retryCount: 2 }, "test", "designOptions"));
    const ctx = sim.addProcess("c1", "client", {}, () => ({}));
    const client = inst.createClient(ctx);
    const store = (id: string) => (sim.contexts.get(id)!.behavior as unknown as RedisServer).store;
    let acq: AcquireResult | undefined;
    let ext: ExtendResult | undefined;
    let extDoneUs = 0;
    ctx.spawn(client.acquire("L", { ttlMs: 10_000, waitMs: 0 }), (r) => (acq = r.value));
    sim.run(100_000);
    expect(acq?.outcome).toBe("ok");
    const g = (acq as Extract<AcquireResult, { outcome: "ok" }>).grant as Grant;
    for (const n of inst.serverIds) expect(store(n).effectOf("L").entry?.value).toBe(g.secret);
    // Cut three nodes for the first attempt only (healed before its unlock round).
    for (const n of ["redis-3", "redis-4", "redis-5"]) sim.network.cutLink("c1", n);
    sim.schedule(sim.nowUs + 30_000, () => {
      for (const n of ["redis-3", "redis-4", "redis-5"]) sim.network.healLink("c1", n);
    });
    ctx.spawn(client.extend(g, 10_000), (r) => {
      ext = r.value;
      extDoneUs = sim.nowUs;
    });
    sim.run(sim.nowUs + 70_000);
    // After the first attempt's unlock round: no node holds the key, yet the extend has not returned.
    expect(ext).toBeUndefined();
    for (const n of inst.serverIds) expect(store(n).effectOf("L").entry, n).toBe(null);
    expect(client.holds(g)).toBe(true);
    sim.run(sim.nowUs + 2_000_000);
    expect(ext).toMatchObject({ outcome: "fail" });
    const misses = sim.history.filter((e) => e.f === "redlock-miss").map((e) => (e.value as { votes: number }).votes);
    expect(misses).toEqual([2, 0, 0]); // 1 + retryCount attempts
    expect(extDoneUs).toBeGreaterThan(100_000 + 2 * 100_000); // two retry delays of at least 100 ms
    // As in node-redlock (v4 and v5), the failure leaves the caller's lock object as it was.
    expect(client.holds(g)).toBe(true);
  });
});
