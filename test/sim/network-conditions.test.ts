import { describe, expect, it } from "vitest";
import { Network, DEFAULT_NETWORK } from "../../sim/network.js";
import { Rng } from "../../sim/rng.js";

const net = (o: Partial<typeof DEFAULT_NETWORK> = {}) => new Network({ ...DEFAULT_NETWORK, latencyUsJitter: 0, ...o }, new Rng("net"));

describe("Network: standing link conditions", () => {
  it("a condition sets one directed link's latency and jitter; other links keep the default", () => {
    const n = net();
    n.setCondition("a", "b", { latencyUsBase: 40_000, latencyUsJitter: 10 });
    for (let i = 0; i < 20; i++) {
      const [t] = n.route("a", "b", 0);
      expect(t).toBeGreaterThanOrEqual(40_000);
      expect(t).toBeLessThanOrEqual(40_010);
    }
    expect(n.route("b", "a", 0)).toEqual([500]);
    expect(n.route("a", "c", 0)).toEqual([500]);
  });

  it("a condition's loss drops messages for good", () => {
    const n = net();
    n.setCondition("a", "b", { lossRate: 1 });
    for (let i = 0; i < 10; i++) expect(n.route("a", "b", i)).toEqual([]);
    expect(n.stats.dropped).toBe(10);
  });

  it("a loss fault layers over a condition and, when it ends, the condition shows again", () => {
    const n = net();
    n.setCondition("a", "b", { latencyUsBase: 9_000, lossRate: 0 });
    n.setLink("a", "b", { lossRate: 1 }); // the fault starts
    expect(n.route("a", "b", 0)).toEqual([]);
    n.setLink("a", "b", { lossRate: DEFAULT_NETWORK.lossRate }); // faults.ts ends it so
    expect(n.route("a", "b", 0)).toEqual([9_000]);
  });

  it("a fault's override still wins over a condition while it lasts", () => {
    const n = net();
    n.setCondition("a", "b", { lossRate: 0.5 });
    n.setLink("a", "b", { lossRate: 1 });
    for (let i = 0; i < 10; i++) expect(n.route("a", "b", i)).toEqual([]);
  });

  it("extra delay (the delay fault) adds to a condition's latency", () => {
    const n = net();
    n.setCondition("a", "b", { latencyUsBase: 2_000 });
    n.setExtraDelay("a", "b", 3_000);
    expect(n.route("a", "b", 0)).toEqual([5_000]);
  });

  it("without conditions the same seed routes exactly as before", () => {
    const routes = (n: Network) => Array.from({ length: 50 }, (_, i) => n.route("a", "b", i * 10));
    const plain = new Network({ ...DEFAULT_NETWORK, lossRate: 0.2 }, new Rng("x"));
    const other = new Network({ ...DEFAULT_NETWORK, lossRate: 0.2 }, new Rng("x"));
    other.setCondition("c", "d", { latencyUsBase: 1 });
    other.setLink("a", "b", { lossRate: 0.2 }); // an override equal to the default is no override
    expect(routes(other)).toEqual(routes(plain));
  });
});
