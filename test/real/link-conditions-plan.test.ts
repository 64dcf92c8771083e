// How real/plan.ts turns delay/loss steps and network.links / network.lossRate into work for
// the per-link proxies, and what it still refuses (no processes started).
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { parseScenario } from "../../scenarios/schema.js";
import { planReal } from "../../real/plan.js";
import { inputErrorOf, MINIMAL_SCENARIO } from "../helpers/input-error.js";

const scenario = (extra: Record<string, unknown>) => parseScenario({ ...MINIMAL_SCENARIO, ...extra }, "x.json");

describe("real mode plan: delay and loss", () => {
  it("redlock-slow-acquire: the delay step acts on the proxied redis-5 → c1 link, in force from before t0", () => {
    const plan = planReal(loadScenario("redlock-slow-acquire"));
    expect(plan.proxied).toBe(true);
    expect(plan.faults).toHaveLength(1);
    expect(plan.faults[0]!.links).toEqual([["redis-5", "c1"]]);
    expect(plan.faults[0]!.trigger).toEqual({ kind: "time", atMs: 0 });
    expect(plan.linkConditions).toEqual([]);
  });

  it("redis-release-delayed-cad: a delay triggered by c1's write reaching the storage (it cannot race the write)", () => {
    const plan = planReal(loadScenario("redis-release-delayed-cad"));
    expect(plan.faults[0]!.trigger).toEqual({ kind: "storage-request", process: "c1", f: "write", nth: 1 });
    expect(plan.faults[0]!.links).toEqual([["c1", "redis-1"]]);
  });

  it("split-vote-redlock-jitter: network.links become standing delays per directed client↔server link, later entries winning", () => {
    const plan = planReal(loadScenario("split-vote-redlock-jitter"));
    expect(plan.proxied).toBe(true);
    const at = (from: string, to: string) => plan.linkConditions.find((c) => c.from === from && c.to === to)?.settings;
    expect(at("c1", "redis-1")).toEqual({ delayUsBase: 1000, delayUsJitter: 0 });
    expect(at("redis-4", "c1")).toEqual({ delayUsBase: 10_000, delayUsJitter: 0 });
    expect(at("c2", "redis-3")).toEqual({ delayUsBase: 40_000, delayUsJitter: 0 });
    expect(at("redis-3", "c2")).toEqual({ delayUsBase: 40_000, delayUsJitter: 0 });
    expect(plan.linkConditions).toHaveLength(20); // 2 clients × 5 servers × 2 directions
    expect(plan.notApplied.some((n) => n.startsWith("network.links latencies"))).toBe(true);
  });

  it("network.lossRate and a loss step: every client↔server link, loss as TCP's (late by an RTO), said so", () => {
    const plan = planReal(
      scenario({ network: { lossRate: 0.1 }, faults: [{ kind: "loss", atMs: 100, durationMs: 200, links: [["redis-1", "c2"]], lossRate: 0.5 }] }),
    );
    expect(plan.linkConditions.map((c) => [c.from, c.to, c.settings.lossRate])).toEqual([
      ["c1", "redis-1", 0.1],
      ["redis-1", "c1", 0.1],
      ["c2", "redis-1", 0.1],
      ["redis-1", "c2", 0.1],
    ]);
    expect(plan.faults[0]!.links).toEqual([["redis-1", "c2"]]);
    expect(plan.notApplied.some((n) => n.startsWith("message loss: TCP loses no bytes"))).toBe(true);
    expect(plan.notApplied.some((n) => n.startsWith("network.lossRate 0.1: applied to the client↔server links only"))).toBe(true);
  });

  it("refuses duplicates, links it has no proxy on, and redis-failover's client links, naming the field", () => {
    const dup = inputErrorOf(() => planReal(scenario({ network: { links: [{ from: "c1", to: "redis-1", duplicateRate: 0.1 }] } })));
    expect(dup.message).toMatch(/network\.links\[0\]\.duplicateRate: real mode cannot run this: TCP does not duplicate/);
    const storage = inputErrorOf(() => planReal(scenario({ network: { links: [{ from: "c1", to: "storage", latencyUsBase: 1000 }] } })));
    expect(storage.message).toMatch(/network\.links\[0\]: real mode cannot run this: the link c1 → storage/);
    const step = inputErrorOf(() => planReal(scenario({ faults: [{ kind: "delay", atMs: 0, links: [["storage", "c1"]], extraMs: 10 }] })));
    expect(step.message).toMatch(/faults\[0\]: real mode cannot run this: the link storage → c1/);
  });

  it("plans a delay or loss between etcd members (the peer proxies carry them through the same pipe as client links), refuses one naming the preferred leader, and plans a cut there", () => {
    const etcd = (faults: unknown[], designOptions: Record<string, unknown> = {}) =>
      scenario({ design: "etcd-lease", workload: { ttlMs: 4000 }, designOptions: { sessionTimeoutMs: 4000, ...designOptions }, faults });
    for (const kind of ["delay", "loss"]) {
      const step = { kind, atMs: 100, durationMs: 500, links: [["etcd-1", "etcd-2"]], ...(kind === "delay" ? { extraMs: 50 } : { lossRate: 0.5 }) };
      const p = planReal(etcd([step]));
      expect(p.peerProxied, kind).toBe(true);
      expect(p.faults[0]!.links, kind).toEqual([["etcd-1", "etcd-2"]]);
      const e = inputErrorOf(() => planReal(etcd([step], { preferredLeader: "etcd-1" })));
      expect(e.message).toMatch(
        /faults\[0\]: real mode cannot run this: .*the link etcd-1 → etcd-2 names designOptions.preferredLeader, which real mode resolves to the current leader for cuts only/,
      );
    }
    const cut = planReal(etcd([{ kind: "cut", atMs: 100, durationMs: 500, links: [["etcd-1", "etcd-2"]] }]));
    expect(cut.peerProxied).toBe(true);
    expect(cut.faults[0]!.links).toEqual([["etcd-1", "etcd-2"]]);
  });
});
