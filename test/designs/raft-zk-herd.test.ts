import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { parseRaftZkOptions } from "../../designs/raft-zk/design.js";
import type { HistoryEvent } from "../../sim/history.js";
import { inputErrorOf } from "../helpers/input-error.js";
import { itSweepsToItsVerdict, outcomeOf } from "../helpers/scenario-sweep.js";

/**
 * raft-zk's waitRecipe "watch-all-children": every waiter watches the parent's children
 * and re-lists on any change. Safe (the lowest node holds), at the cost recipes.md calls
 * the herd effect: each create and release wakes every waiter. Measured by the servers'
 * watch-fired notes and the clients' getChildren reads beside the predecessor recipe on
 * the same eight-client queue.
 */
/**
 * Fewer than the usual 200 seeds, for the safe side only (both scenarios here are safe):
 * eight Raft-backed clients cost ~0.2 s a run, and 200 seeds of each took 80 s of wall
 * time on the shared 2-core machine (npx vitest run test/designs/raft-zk-herd.test.ts).
 */
const SEEDS = 40;
const HERD = "raft-zk-herd-watch-all-children";
const PRED = "raft-zk-herd-predecessor";

const count = (h: readonly HistoryEvent[], f: string, type?: string) => h.filter((e) => e.f === f && (type === undefined || e.type === type)).length;

describe("waitRecipe watch-all-children", () => {
  it("is a recipe choice, named among the others when misspelt", () => {
    expect(parseRaftZkOptions({ waitRecipe: "watch-all-children" }, "s.json", "designOptions").recipe.waitRecipe).toBe("watch-all-children");
    expect(inputErrorOf(() => parseRaftZkOptions({ waitRecipe: "herd" }, "s.json", "designOptions")).message).toBe(
      's.json: designOptions.waitRecipe: expected one of "predecessor", "watch-fired-shortcut", "watch-all-children", got "herd"',
    );
  });

  it("the pair differs only in the recipe", () => {
    const h = loadScenario(HERD);
    const p = loadScenario(PRED);
    expect({ ...h, name: "", title: "", story: "", file: "", designOptions: {} }).toEqual({
      ...p,
      name: "",
      title: "",
      story: "",
      file: "",
      designOptions: {},
    });
    expect(h.designOptions).toEqual({ ...(p.designOptions as object), waitRecipe: "watch-all-children" });
  });

  it("on its own seed: the same 16 holds, one holder at a time, and several times the watch events", () => {
    const herd = outcomeOf(loadScenario(HERD), 1);
    const pred = outcomeOf(loadScenario(PRED), 1);
    for (const r of [herd, pred]) {
      expect(r.outcome).toBe("safe");
      expect(count(r.history, "acquire", "ok")).toBe(16);
    }
    const herdWatches = count(herd.history, "watch-fired");
    const predWatches = count(pred.history, "watch-fired");
    // The predecessor recipe: about one wake-up per hold handed on (15 hand-overs).
    expect(predWatches).toBeLessThanOrEqual(16);
    // The herd: every create and every release wakes every waiter then queued.
    expect(herdWatches).toBeGreaterThanOrEqual(4 * predWatches);
  });
});

describe(`herd scenarios, ${SEEDS}-seed sweeps`, () => {
  itSweepsToItsVerdict(HERD, SEEDS);
  itSweepsToItsVerdict(PRED, SEEDS);
});
