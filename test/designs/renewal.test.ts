import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import type { Scenario } from "../../scenarios/schema.js";
import type { HistoryEvent } from "../../sim/history.js";
import { outcomeOf } from "../helpers/scenario-sweep.js";

/**
 * Renewal workloads on the Raft-backed designs: a hold twice the session timeout (lease
 * TTL), kept only by pings / keepalives, with the leader isolated mid-hold. The stories
 * on a few seeds, and a control that shows the fault reaches the renewal path: the same
 * hold with the *client* isolated loses the lock, and the renewal before the write says
 * so. Their 200-seed sweeps run with every scenarios/raft-zk/ and scenarios/etcd-lease/
 * file (raft-zk-scenarios.test.ts, etcd-lease-scenarios.test.ts).
 */
const find = (h: readonly HistoryEvent[], p: Partial<HistoryEvent>) =>
  h.filter((e) => Object.entries(p).every(([k, x]) => (e as unknown as Record<string, unknown>)[k] === x));

for (const design of ["raft-zk", "etcd-lease"] as const) {
  const name = `${design}-long-hold-leader-isolated`;
  describe(name, () => {
    it("c1 keeps the lock through the leader's isolation: acquired before it, renewed and written after it, and c2 gets the lock only after c1's release", () => {
      const s = loadScenario(name);
      const fault = s.faults[0]!;
      for (let seed = 1; seed <= 5; seed++) {
        const r = outcomeOf(s, seed);
        expect(r.outcome, `seed ${seed}`).toBe("safe");
        const h = r.history;
        expect(find(h, { process: "c1", f: "acquire", type: "ok" })[0]!.timeUs).toBeLessThan(fault.atMs! * 1000);
        const renew = find(h, { process: "c1", f: "extend", type: "ok" })[0]!;
        expect(renew.timeUs, `seed ${seed}`).toBeGreaterThan((fault.atMs! + fault.durationMs!) * 1000);
        expect(find(h, { process: "c1", f: "write", type: "ok" }), `seed ${seed}`).toHaveLength(1);
        const c1release = find(h, { process: "c1", f: "release", type: "ok" })[0]!;
        expect(c1release.value, `seed ${seed}`).toEqual({ released: true });
        expect(find(h, { process: "c2", f: "acquire", type: "ok" })[0]!.timeUs, `seed ${seed}`).toBeGreaterThan(c1release.timeUs);
      }
    });

    it("control: the same hold with c1 itself isolated loses the lock, and c1's renewal stops its write", () => {
      const base = loadScenario(name);
      const s: Scenario = { ...base, faults: [{ ...base.faults[0]!, target: "c1", durationMs: 6000 }] };
      const r = outcomeOf(s, 1);
      expect(r.outcome).toBe("safe");
      const h = r.history;
      const c2ok = find(h, { process: "c2", f: "acquire", type: "ok" })[0]!;
      expect(c2ok.timeUs).toBeLessThan(find(h, { process: "c1", f: "release", type: "invoke" })[0]!.timeUs);
      expect(find(h, { process: "c1", f: "extend" }).find((e) => e.type !== "invoke")!.type).not.toBe("ok");
      expect(find(h, { process: "c1", f: "write" })).toHaveLength(0);
    });
  });
}

describe("workload renewEveryMs (a watchdog's renewal) on redis-setnx", () => {
  const base = (renewEveryMs: number): Scenario => {
    const s = loadScenario("naive-baseline");
    return {
      ...s,
      name: "watchdog-renewal",
      durationMs: 8000,
      faults: [],
      nemesis: undefined,
      clients: [
        { id: "c1", startMs: 0, opsMax: 1 },
        { id: "c2", startMs: 10, opsMax: 1 },
      ],
      workload: { ...s.workload, ttlMs: 1000, waitMs: 6000, workMs: 3000, thinkMs: 0, thinkJitterMs: 0, renewEveryMs, validityCheck: "before-read-and-write" },
    };
  };

  it("keeps a 1 s lock through 3 s of work: a renewal every 400 ms, the write made, c2 served only after c1's release", () => {
    const h = outcomeOf(base(400), 1).history;
    const renewals = find(h, { process: "c1", f: "extend", type: "ok" });
    expect(renewals).toHaveLength(7);
    expect(find(h, { process: "c1", f: "write", type: "ok" })).toHaveLength(1);
    const released = find(h, { process: "c1", f: "release", type: "ok" })[0]!;
    expect(released.value).toEqual({ released: true });
    expect(find(h, { process: "c2", f: "acquire", type: "ok" })[0]!.timeUs).toBeGreaterThan(released.timeUs);
  });

  it("control: without renewals the lease lapses mid-work, c2 takes the lock, and c1's check skips its write", () => {
    const h = outcomeOf(base(0), 1).history;
    expect(find(h, { process: "c1", f: "extend" })).toHaveLength(0);
    expect(find(h, { process: "c1", f: "write" })).toHaveLength(0);
    expect(find(h, { process: "c2", f: "acquire", type: "ok" })[0]!.timeUs).toBeLessThan(find(h, { process: "c1", f: "release", type: "invoke" })[0]!.timeUs);
  });

  it("a refused renewal ends the critical section: no write after it", () => {
    const s = base(400);
    // The key is taken away under c1 (a server restart without persistence) between two renewals.
    s.faults = [{ atMs: 900, delayMs: 0, kind: "restart", target: "redis-1", durationMs: 10, note: "redis-1 restarts empty" }] as Scenario["faults"];
    const h = outcomeOf(s, 1).history;
    const ends = find(h, { process: "c1", f: "extend" }).filter((e) => e.type !== "invoke");
    expect(ends.at(-1)!.type).toBe("fail");
    expect(find(h, { process: "c1", f: "write" })).toHaveLength(0);
  });
});
