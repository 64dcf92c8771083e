// The duplicate fault kind, added as one file (faults/duplicate.ts) plus its registry line:
// validated with errors naming the field, a window of duplicated messages in the simulator,
// undone at durationMs's end, and refused by real mode with its reason.
import { describe, expect, it } from "vitest";
import { Simulation, type Message } from "../../sim/simulation.js";
import { NEMESIS } from "../../sim/history.js";
import { FaultSchedule } from "../../faults/apply.js";
import type { FaultStep } from "../../faults/types.js";
import { parseScenario } from "../../scenarios/schema.js";
import { planReal } from "../../real/plan.js";
import { describeStep } from "../../harness/explore/scenario-file.js";
import { faultSentence, type RunView } from "../../reports/run-view.js";
import { inputErrorOf, MINIMAL_SCENARIO, scenarioErrorOf } from "../helpers/input-error.js";

const scenario = (fault: Record<string, unknown>) => ({ ...MINIMAL_SCENARIO, faults: [fault] });

/** a sends b one message each ms for 300 ms; returns the true times (µs) b received each. */
function run(steps: FaultStep[]): { received: number[]; sim: Simulation } {
  const sim = new Simulation({ seed: "dup", network: { latencyUsBase: 1000, latencyUsJitter: 0 } });
  const received: number[] = [];
  const a = sim.addProcess("a", "server", {}, () => ({ onMessage() {} }));
  sim.addProcess("b", "server", {}, () => ({ onMessage: (_from: string, _m: Message) => void received.push(sim.nowUs) }));
  new FaultSchedule(sim, steps).install();
  for (let i = 0; i < 300; i++) sim.schedule(i * 1000, () => a.send("b", { type: "m" }));
  sim.run(400_000);
  return { received, sim };
}

describe("fault kind: duplicate", () => {
  it("parses links and duplicateRate", () => {
    const s = parseScenario(scenario({ kind: "duplicate", atMs: 10, durationMs: 50, links: [["c1", "redis-1"]], duplicateRate: 0.5 }), "x.json");
    expect(s.faults[0]).toMatchObject({ kind: "duplicate", links: [["c1", "redis-1"]], duplicateRate: 0.5, durationMs: 50 });
  });

  it("a rate outside [0, 1] or missing is an error naming faults[0].duplicateRate", () => {
    const high = scenarioErrorOf(scenario({ kind: "duplicate", atMs: 0, links: [["c1", "redis-1"]], duplicateRate: 2 }));
    expect(high.message).toContain("faults[0].duplicateRate");
    const missing = scenarioErrorOf(scenario({ kind: "duplicate", atMs: 0, links: [["c1", "redis-1"]] }));
    expect(missing.message).toContain("faults[0].duplicateRate");
    const noLinks = scenarioErrorOf(scenario({ kind: "duplicate", atMs: 0, duplicateRate: 0.5 }));
    expect(noLinks.message).toContain("faults[0].links");
  });

  it("duplicates messages on its link only during its window, and notes start and end as the nemesis", () => {
    const step: FaultStep = { kind: "duplicate", atMs: 100, delayMs: 0, durationMs: 100, links: [["a", "b"]], duplicateRate: 1 };
    const { received, sim } = run([step]);
    // Sends at 100..200 ms inclusive: the start runs before the send at 100 ms (scheduled at
    // install) and the end after the send at 200 ms (scheduled when the fault started).
    const inWindow = received.filter((t) => t >= 101_000 && t <= 201_000).length;
    const outside = received.length - inWindow;
    expect(inWindow).toBe(2 * 101); // every message sent in the window, twice
    expect(outside).toBe(300 - 101); // the others once: the network's default (no duplication) came back
    expect(sim.network.stats.duplicated).toBe(101);
    const notes = sim.history.filter((e) => e.process === NEMESIS);
    expect(notes.map((e) => [e.f, (e.value as { phase: string }).phase, e.timeUs])).toEqual([
      ["duplicate", "start", 100_000],
      ["duplicate", "end", 200_000],
    ]);
    expect(notes[0]!.value).toMatchObject({ links: [["a", "b"]], duplicateRate: 1, targets: ["a", "b"] });
  });

  it("only the listed direction is duplicated", () => {
    const { received } = run([{ kind: "duplicate", atMs: 0, delayMs: 0, links: [["b", "a"]], duplicateRate: 1 }]);
    expect(received).toHaveLength(300);
  });

  it("describes itself for stories", () => {
    expect(describeStep({ kind: "duplicate", atMs: 5, delayMs: 0, durationMs: 20, links: [["c1", "redis-1"]], duplicateRate: 0.25 })).toBe(
      "at 5 ms: duplicate 25% of messages on c1->redis-1 for 20 ms",
    );
  });

  it("the run report tells it in words, with its rate and length", () => {
    const view = { lanes: [{ id: "c1" }, { id: "redis-1" }] } as unknown as RunView;
    const mark = { kind: "duplicate", step: 0, s: 1000, e: 51_000, lanes: [0, 1], duplicateRate: 0.5 };
    expect(faultSentence(view, mark)).toBe("messages between c1, redis-1 are duplicated at rate 0.5 for 50 ms");
    expect(faultSentence(view, { ...mark, kind: "kill" })).toBe("kill on c1, redis-1 for 50 ms"); // a kind the registry lacks
  });

  it("real mode refuses it, naming the step and saying why", () => {
    const s = parseScenario(scenario({ kind: "duplicate", atMs: 10, durationMs: 50, links: [["c1", "redis-1"]], duplicateRate: 0.5 }), "x.json");
    const e = inputErrorOf(() => planReal(s));
    expect(e.message).toContain("faults[0]");
    expect(e.message).toContain("TCP connections, which deliver each byte once");
  });
});
