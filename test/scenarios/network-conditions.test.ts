import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { parseScenario } from "../../scenarios/schema.js";
import { runScenario } from "../../harness/runner.js";
import { replayCommand } from "../../harness/artifacts.js";
import { inputErrorOf } from "../helpers/input-error.js";
import { outcomeOf } from "../helpers/scenario-sweep.js";

/**
 * Standing network conditions (`network.links`) are not faults: they never heal, and
 * liveness is judged under them. Two Redlock clients on a permanently slow, mirror-
 * symmetric network split the votes 2-2 on every attempt; without retry jitter they do
 * so forever (liveness-loss, judged), with node-redlock's jitter one of them wins (safe).
 */
const SEEDS = 20;

describe("network conditions: the Redlock split vote", () => {
  for (const [name, liveness] of [
    ["split-vote-redlock-no-jitter", false],
    ["split-vote-redlock-jitter", true],
  ] as const) {
    it(`${name}: its expected verdict on each of ${SEEDS} seeds, liveness judged`, () => {
      const s = loadScenario(name);
      expect(s.network.links.length).toBeGreaterThan(0);
      for (let seed = 1; seed <= SEEDS; seed++) {
        const r = outcomeOf(s, seed);
        const replay = `replay: ${replayCommand(s, seed)}`;
        expect(r.outcome, replay).toBe(s.expect);
        expect(r.verdicts.results.find((v) => v.checker === "liveness")?.valid, replay).toBe(liveness);
        expect(r.mutualExclusion, replay).toBe(true);
        // Conditions leave no mark in the history: nothing for liveness to wait out.
        expect(
          r.history.some((e) => e.process === "nemesis"),
          replay,
        ).toBe(false);
        expect(r.meta.conditions).toEqual(s.network.links);
      }
    });
  }

  it("without jitter nobody is ever granted: every attempt splits 2-2", () => {
    const { history } = outcomeOf(loadScenario("split-vote-redlock-no-jitter"), 1);
    expect(history.filter((e) => e.f === "acquire" && e.type === "ok")).toHaveLength(0);
    const misses = history.filter((e) => e.f === "redlock-miss");
    expect(misses.length).toBeGreaterThan(10);
    expect(misses.every((e) => (e.value as { votes: number }).votes === 2)).toBe(true);
  });
});

const base = {
  name: "t",
  story: "a story",
  design: "redlock",
  expect: "safe",
  durationMs: 500,
  clients: 2,
  workload: { ttlMs: 1000 },
};
const withLinks = (links: unknown) => ({ ...base, network: { links } });

describe("network conditions: validation", () => {
  it("defaults to none, and accepts one id or a list on each side", () => {
    expect(parseScenario(base, "t.json").network.links).toEqual([]);
    const s = parseScenario(withLinks([{ from: "c1", to: ["redis-1", "redis-2"], latencyUsBase: 9000, bothWays: false }]), "t.json");
    expect(s.network.links).toEqual([{ from: ["c1"], to: ["redis-1", "redis-2"], bothWays: false, latencyUsBase: 9000 }]);
  });

  it.each([
    [[{ to: "redis-1", latencyUsBase: 1 }], "network.links[0].from"],
    [[{ from: [], to: "redis-1", latencyUsBase: 1 }], "network.links[0].from"],
    [[{ from: "c1", to: [3], latencyUsBase: 1 }], "network.links[0].to"],
    [[{ from: "c1", to: "redis-1" }], "network.links[0]"],
    [[{ from: "c1", to: "redis-1", lossRate: 2 }], "network.links[0].lossRate"],
    [[{ from: "c1", to: "redis-1", latencyUsBase: 1.5 }], "network.links[0].latencyUsBase"],
    [[{ from: "c1", to: "redis-1", extraMs: 5 }], "network.links[0].extraMs"],
    ["slow", "network.links"],
  ])("rejects %j naming the file and %s", (links, field) => {
    const e = inputErrorOf(() => parseScenario(withLinks(links), "bad.json"));
    expect(e.message).toContain("bad.json");
    expect(e.message).toContain(`${field}:`);
  });

  it("an unknown process id is rejected when the run is built", () => {
    const s = parseScenario(withLinks([{ from: "c1", to: ["redis-1", "redis-9"], latencyUsBase: 1 }]), "bad.json");
    const e = inputErrorOf(() => runScenario(s, 1));
    expect(e.message).toContain("network.links[0].to[1]");
    expect(e.message).toContain("redis-9");
  });
});
