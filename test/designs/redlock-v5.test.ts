import { describe, expect, it } from "vitest";
import { redlock, parseRedlockOptions } from "../../designs/redlock/design.js";
import type { AcquireResult, LockClient } from "../../designs/types.js";
import type { RedisServer } from "../../services/redis/server.js";
import { Simulation } from "../../sim/simulation.js";
import type { Fiber } from "../../sim/fiber.js";
import { loadScenario } from "../../scenarios/index.js";
import { parseScenario } from "../../scenarios/schema.js";
import { runScenario } from "../../harness/runner.js";
import type { HistoryEvent } from "../../sim/history.js";
import { inputErrorOf } from "../helpers/input-error.js";
import { itSweepsToItsVerdict, outcomeOf } from "../helpers/scenario-sweep.js";

/**
 * node-redlock v5 as a model variant (`designOptions.variant: "node-redlock-v5"`,
 * designs/redlock/client.ts and using.ts, after v5.0.0-beta.2 src/index.ts): an attempt
 * resolves on a quorum; acquire returns a lock that may already have expired; using()
 * extends automatically and signals a failure only after the failed extension's retries.
 */
const SEEDS = 200;

/** Five nodes and one client, no jitter, so timings are exact. */
function world(options: Record<string, unknown>) {
  const sim = new Simulation({ seed: "redlock-v5", network: { latencyUsBase: 500, latencyUsJitter: 0 } });
  const inst = redlock.setup({ sim, processOptions: () => ({}) }, parseRedlockOptions(options, "test", "designOptions"));
  const ctx = sim.addProcess("c1", "client", {}, () => ({}));
  const client = inst.createClient(ctx);
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
  const store = (id: string) => (sim.contexts.get(id)!.behavior as unknown as RedisServer).store;
  return { sim, client, go, store };
}

const grantOf = (r: AcquireResult | undefined) => {
  expect(r?.outcome).toBe("ok");
  return (r as Extract<AcquireResult, { outcome: "ok" }>).grant;
};

describe("node-redlock v5 variant: options", () => {
  it("accepts the variant and using() only with it", () => {
    expect(parseRedlockOptions({ variant: "node-redlock-v5" }, "s.json", "designOptions")).toMatchObject({
      variant: "node-redlock-v5",
      using: false,
      automaticExtensionThresholdMs: 500,
      usingCheck: "signal",
    });
    const e = inputErrorOf(() => parseRedlockOptions({ using: true }, "s.json", "designOptions"));
    expect(e.message).toBe(
      's.json: designOptions.using: expected false unless variant is "node-redlock-v5" (using() auto-extension is v5\'s; variant is "node-redlock"), got true',
    );
    expect(inputErrorOf(() => parseRedlockOptions({ variant: "node-redlock-v5", usingCheck: "signal" }, "s.json", "designOptions")).field).toBe(
      "designOptions.usingCheck",
    );
    expect(inputErrorOf(() => parseRedlockOptions({ variant: "node-redlock-v5", using: true, usingCheck: "lease" }, "s.json", "designOptions")).message).toBe(
      's.json: designOptions.usingCheck: expected one of "signal", "expiration", got "lease"',
    );
    expect(inputErrorOf(() => parseRedlockOptions({ variant: "v5" }, "s.json", "designOptions")).message).toMatch(
      /designOptions.variant: expected one of "node-redlock", "node-redlock-v5", "seed-000"/,
    );
  });

  it("refuses a using() threshold within 100 ms of the TTL, as using() itself does, before the run starts", () => {
    const s = parseScenario(
      {
        name: "x",
        story: "x",
        design: "redlock",
        designOptions: { variant: "node-redlock-v5", using: true, automaticExtensionThresholdMs: 950 },
        expect: "safe",
        durationMs: 1000,
        clients: 1,
        workload: { ttlMs: 1000 },
      },
      "x.json",
    );
    const e = inputErrorOf(() => runScenario(s, 1));
    expect(e.message).toBe(
      "x.json: designOptions.automaticExtensionThresholdMs: expected at most workload.ttlMs − 100 = 900 (node-redlock v5's using() refuses a duration less than 100 ms above the threshold), got 950",
    );
  });

  it("workload.validityCheck takes the three values, and names the field otherwise", () => {
    const base = { name: "x", story: "x", design: "redlock", expect: "safe", durationMs: 1000, clients: 1 };
    expect(parseScenario({ ...base, workload: { ttlMs: 1000 } }, "x.json").workload.validityCheck).toBe("before-read");
    expect(inputErrorOf(() => parseScenario({ ...base, workload: { ttlMs: 1000, validityCheck: "always" } }, "x.json")).message).toBe(
      'x.json: workload.validityCheck: expected one of "before-read", "before-read-and-write", "none", got "always"',
    );
  });
});

describe("node-redlock v5 variant: the client", () => {
  it("an attempt resolves on the third vote; v4 waits for the slow nodes (here: into their timeout)", () => {
    const slow = (w: ReturnType<typeof world>) => {
      for (const n of ["redis-4", "redis-5"]) w.sim.network.setCondition(n, "c1", { latencyUsBase: 30_000 });
    };
    const v5 = world({ variant: "node-redlock-v5" });
    slow(v5);
    const a5 = v5.go(0, (c) => c.acquire("L", { ttlMs: 1000, waitMs: 0 }));
    v5.sim.run(5_000_000);
    expect(grantOf(a5.value).data).toMatchObject({ votes: ["redis-1", "redis-2", "redis-3"] });
    expect(a5.doneUs).toBe(1_000); // two 0.5 ms hops
    const v4 = world({ variant: "node-redlock" });
    slow(v4);
    const a4 = v4.go(0, (c) => c.acquire("L", { ttlMs: 1000, waitMs: 0 }));
    v4.sim.run(5_000_000);
    expect(grantOf(a4.value).data).toMatchObject({ votes: ["redis-1", "redis-2", "redis-3", "redis-4", "redis-5"] });
    expect(a4.doneUs).toBe(30_500);
  });

  it("acquire returns a lock that expired while the votes were in flight; v4 refuses the same lock", () => {
    const run = (variant: string) => {
      const w = world({ variant, retryCount: 0, requestTimeoutMs: 5000 });
      // Every reply takes 1.5 s: the votes come back after the 1 s TTL.
      for (const n of ["redis-1", "redis-2", "redis-3", "redis-4", "redis-5"]) w.sim.network.setCondition(n, "c1", { latencyUsBase: 1_500_000 });
      const a = w.go(0, (c) => c.acquire("L", { ttlMs: 1000, waitMs: 0 }));
      w.sim.run(10_000_000);
      return { w, a };
    };
    const v5 = run("node-redlock-v5");
    const g = grantOf(v5.a.value);
    // expiration = start 0 + 1000 − 12 drift; the third OK arrives at 1500.5 ms (Date.now() 1500).
    expect(g.validityMs).toBe(988 - 1500);
    expect(v5.w.client.holds(g)).toBe(false);
    const v4 = run("node-redlock");
    expect(v4.a.value?.outcome).toBe("fail");
  });

  it("a failed extension unlocks nothing (v4's does) and leaves the lock as it was", () => {
    const w = world({ variant: "node-redlock-v5", retryCount: 2 });
    const a = w.go(0, (c) => c.acquire("L", { ttlMs: 1000, waitMs: 0 }));
    w.sim.run(100_000);
    const g = grantOf(a.value);
    const before = g.expiresAtMonoUs;
    for (const n of ["redis-1", "redis-2", "redis-3"]) w.sim.network.cutLink("c1", n);
    const ex = w.go(200, (c) => c.extend(g, 5000));
    w.sim.run(2_000_000);
    expect(ex.value?.outcome).toBe("fail");
    expect(g.expiresAtMonoUs).toBe(before);
    // Nothing was unlocked: redis-4 and redis-5 still hold c1's value, extended by each attempt.
    for (const n of ["redis-4", "redis-5"]) expect(w.store(n).effectOf("L").entry?.value).toBe(g.secret);
  });
});

const ev = (h: readonly HistoryEvent[], process: string, f: string, type?: string) =>
  h.filter((e) => e.process === process && e.f === f && (type === undefined || e.type === type));

describe("the scenarios' stories, on their own seed", () => {
  it("acquire-pause: v5 returns c1 an expired lock; the checking caller does nothing with it, the other acts beside c2", () => {
    const checked = outcomeOf(loadScenario("redlock-v5-acquire-pause"), 1);
    const unchecked = outcomeOf(loadScenario("redlock-v5-acquire-pause-unchecked"), 1);
    for (const r of [checked, unchecked]) {
      const ok = ev(r.history, "c1", "acquire", "ok")[0]!;
      expect((ok.value as { validityMs: number }).validityMs).toBeLessThan(0);
      expect(ev(r.history, "c2", "acquire", "ok")[0]!.timeUs).toBeLessThan(ok.timeUs);
    }
    expect(ev(checked.history, "c1", "read")).toEqual([]);
    expect(checked.outcome).toBe("safe");
    expect(ev(unchecked.history, "c1", "write", "ok")).toHaveLength(1);
    expect(unchecked.verdicts.results.find((x) => x.checker === "lost-updates")!.valid).toBe(false);
    // v4 on the unchecked caller's schedule refuses the lock itself: the library's check was the difference.
    const s = loadScenario("redlock-v5-acquire-pause-unchecked");
    // Challenged as redlock-v5-acquire-pause is: c1 asked while c2 held, and was served after.
    const v4 = outcomeOf({ ...s, designOptions: { variant: "node-redlock" }, challenge: { kind: "waiter-served" } }, 1);
    expect(v4.outcome).toBe("safe");
    expect(ev(v4.history, "c1", "acquire", "ok")[0]!.timeUs).toBeGreaterThan(ev(v4.history, "c2", "release", "invoke")[0]!.timeUs);
  });

  it("using-partition: the signal fires after c1's write and long after c2 took the lock; the expiration check skips the write", () => {
    const sig = outcomeOf(loadScenario("redlock-v5-using-partition-signal"), 1);
    const exp = outcomeOf(loadScenario("redlock-v5-using-partition-expiration"), 1);
    for (const r of [sig, exp]) {
      expect(ev(r.history, "c1", "using-extend").length).toBeGreaterThanOrEqual(2);
      const abort = ev(r.history, "c1", "using-abort")[0]!;
      const c2ok = ev(r.history, "c2", "acquire", "ok")[0]!;
      expect(c2ok.timeUs).toBeLessThan(2_500_000);
      expect(abort.timeUs).toBeGreaterThan(3_000_000);
    }
    const write = ev(sig.history, "c1", "write", "ok")[0]!;
    expect(write.timeUs).toBeLessThan(ev(sig.history, "c1", "using-abort")[0]!.timeUs);
    expect(sig.outcome).toBe("unsafe");
    expect(ev(exp.history, "c1", "write")).toEqual([]);
    expect(ev(exp.history, "c1", "write-skipped")).toHaveLength(1);
    expect(exp.outcome).toBe("safe");
  });

  it("using-long-hold: c1 holds five TTLs through a minority partition, every extension on a quorum", () => {
    const r = outcomeOf(loadScenario("redlock-v5-using-long-hold"), 1);
    expect(r.outcome).toBe("safe");
    expect(ev(r.history, "c1", "using-extend").length).toBeGreaterThanOrEqual(8);
    expect(ev(r.history, "c1", "using-abort")).toEqual([]);
    expect(ev(r.history, "c1", "write", "ok")).toHaveLength(1);
    const c1rel = ev(r.history, "c1", "release", "invoke")[0]!;
    expect(ev(r.history, "c2", "acquire", "ok")[0]!.timeUs).toBeGreaterThan(c1rel.timeUs);
  });
});

describe(`node-redlock v5 scenarios, ${SEEDS}-seed sweeps: each scenario's verdict on every seed`, () => {
  for (const name of [
    "redlock-v5-acquire-pause",
    "redlock-v5-acquire-pause-unchecked",
    "redlock-v5-using-partition-signal",
    "redlock-v5-using-partition-expiration",
    "redlock-v5-using-long-hold",
  ]) {
    itSweepsToItsVerdict(name, SEEDS);
  }
});
