import { describe, expect, it } from "vitest";
import { drawNemesis } from "../../harness/nemesis.js";
import { Rng } from "../../sim/rng.js";
import { parseScenario, type NemesisSpec } from "../../scenarios/schema.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import { inputErrorOf } from "../helpers/input-error.js";

const world = { servers: ["s1", "s2", "s3"], clients: ["c1", "c2"], ttlMs: 1000 };
const spec: NemesisSpec = { scope: "servers", stepsMax: 6, startMs: 500, stopMs: 4500, healing: true };
const draw = (seed: string, s: NemesisSpec = spec) => drawNemesis(s, world, new Rng(seed).fork("nemesis"));

describe("random nemesis", () => {
  it("draws the same schedule for the same seed and different ones for different seeds", () => {
    expect(draw("a")).toEqual(draw("a"));
    const schedules = new Set(Array.from({ length: 20 }, (_, i) => JSON.stringify(draw(`seed-${i}`))));
    expect(schedules.size).toBeGreaterThan(10);
  });

  it("keeps to its window, its step bound and its scope", () => {
    for (let i = 0; i < 50; i++) {
      const steps = draw(`w${i}`);
      expect(steps.length).toBeLessThanOrEqual(6);
      for (const st of steps) {
        expect(st.atMs!).toBeGreaterThanOrEqual(500);
        expect(st.atMs!).toBeLessThan(4500);
        const touched = [st.target, ...(st.groups?.flat() ?? []), ...(st.links?.flat() ?? [])].filter((x): x is string => x !== undefined);
        for (const id of touched) expect(world.servers).toContain(id);
      }
    }
  });

  it("with healing, every crash restarts; without, some may stay down", () => {
    const stays = (s: NemesisSpec) =>
      Array.from({ length: 200 }, (_, i) => drawNemesis(s, world, new Rng(`h${i}`)))
        .flat()
        .filter((st) => st.kind === "crash" && st.durationMs === undefined).length;
    expect(stays(spec)).toBe(0);
    expect(stays({ ...spec, healing: false })).toBeGreaterThan(0);
  });

  it("with scope all, it can break the naive lock, and the run replays identically", () => {
    const s = parseScenario(
      {
        name: "naive-nemesis",
        story: "random faults on everyone",
        design: "redis-setnx",
        expect: "safe",
        durationMs: 8000,
        clients: 3,
        workload: { ttlMs: 1000, waitMs: 2000, workMs: 20, thinkMs: 20 },
        nemesis: { scope: "all", stepsMax: 5, stopMs: 6000 },
      },
      "naive-nemesis.json",
    );
    let unsafe = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const run = runScenario(s, seed);
      expect(run.meta.faults.every((f) => f.note === "drawn by the nemesis")).toBe(true);
      if (runCheckers(run.history, checkContextFor(s)).outcome === "unsafe") unsafe++;
    }
    expect(unsafe).toBeGreaterThan(0);
    expect(runScenario(s, 7).history).toEqual(runScenario(s, 7).history);
  });

  it("repeatEveryMs draws the window again, with fresh dice, while it fits the run; the first window is the unrepeated one", () => {
    const base = {
      name: "naive-repeat",
      story: "random faults, again and again",
      design: "redis-setnx",
      expect: "safe",
      durationMs: 20_000,
      clients: 2,
      workload: { ttlMs: 1000, waitMs: 2000, workMs: 20, thinkMs: 20 },
    };
    const once = parseScenario({ ...base, nemesis: { scope: "servers", stepsMax: 4, startMs: 1000, stopMs: 4000 } }, "once.json");
    const again = parseScenario({ ...base, nemesis: { scope: "servers", stepsMax: 4, startMs: 1000, stopMs: 4000, repeatEveryMs: 5000 } }, "again.json");
    const windows = new Set<number>();
    let repeated = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const first = runScenario(once, seed).meta.faults;
      const all = runScenario(again, seed).meta.faults;
      expect(all.slice(0, first.length)).toEqual(first);
      for (const st of all) {
        const k = Math.floor(st.atMs! / 5000);
        expect(st.atMs! - k * 5000).toBeGreaterThanOrEqual(1000);
        expect(st.atMs! - k * 5000).toBeLessThan(4000);
        windows.add(k);
      }
      if (all.length > first.length) repeated++;
    }
    // Windows start at 1, 6, 11 and 16 s; the one at 21 s would not fit a 20 s run.
    expect([...windows].sort()).toEqual([0, 1, 2, 3]);
    expect(repeated).toBeGreaterThan(5);
    expect(inputErrorOf(() => parseScenario({ ...base, nemesis: { scope: "all", startMs: 0, stopMs: 4000, repeatEveryMs: 3000 } }, "n.json")).message).toMatch(
      /n.json: nemesis.repeatEveryMs: expected .*4000/,
    );
  });

  it("rejects a bad nemesis block with the field named", () => {
    const base = { name: "x", story: "s", design: "redis-setnx", expect: "safe", durationMs: 1000, clients: 1, workload: { ttlMs: 100 } };
    expect(inputErrorOf(() => parseScenario({ ...base, nemesis: { scope: "everyone" } }, "n.json")).field).toBe("nemesis.scope");
    expect(inputErrorOf(() => parseScenario({ ...base, nemesis: { scope: "all", startMs: 500, stopMs: 400 } }, "n.json")).message).toMatch(
      /n.json: nemesis.stopMs: expected more than startMs \(500\)/,
    );
    expect(inputErrorOf(() => parseScenario({ ...base, nemesis: { scope: "all", stopMs: 5000 } }, "n.json")).message).toMatch(
      /expected at most durationMs \(1000\)/,
    );
  });
});
