import { describe, expect, it } from "vitest";
import { forEachPair } from "../../checkers/pairs.js";
import { pairOperations, type HistoryEvent } from "../../sim/history.js";
import { allScenarios } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";

/** The (invoke index, complete index) pairs, as pairOperations makes them and as forEachPair gives them. */
function both(history: readonly HistoryEvent[]): { batch: string[]; streamed: string[] } {
  // An op with no completion is "invoke>-".
  const batch = pairOperations(history)
    .ops.map((op) => `${op.invoke.index}>${op.complete?.index ?? "-"}`)
    .sort();
  const streamed: string[] = [];
  forEachPair(
    history,
    (invoke, complete, at) => {
      expect(history[at]).toBe(invoke);
      streamed.push(`${invoke.index}>${complete.index}`);
    },
    (invoke, at) => {
      expect(history[at]).toBe(invoke);
      streamed.push(`${invoke.index}>-`);
    },
  );
  return { batch, streamed: streamed.sort() };
}

const ev = (index: number, process: string, type: HistoryEvent["type"], f: string): HistoryEvent =>
  ({ index, timeUs: index * 10, process, type, f, lock: "l" }) as HistoryEvent;

describe("forEachPair", () => {
  it("pairs as pairOperations does: a superseded invoke stays open, another f is an annotation, a stray completion pairs nothing", () => {
    const h = [
      ev(0, "c1", "invoke", "acquire"),
      ev(1, "c1", "invoke", "release"), // c1's acquire is left unknown
      ev(2, "c1", "ok", "acquire"), // not the open op's f: an annotation
      ev(3, "c1", "ok", "release"),
      ev(4, "c2", "ok", "write"), // nothing open
      ev(5, "c2", "invoke", "write"),
      ev(6, "c1", "info", "lapse"),
      ev(7, "c2", "fail", "write"),
      ev(8, "c2", "fail", "write"), // already completed
      ev(9, "c3", "invoke", "read"), // never completes
    ];
    const { batch, streamed } = both(h);
    expect(streamed).toEqual(["0>-", "1>3", "5>7", "9>-"]);
    expect(streamed).toEqual(batch);
  });

  it("gives pairOperations' pairs on every shipped scenario (seed 1)", () => {
    for (const s of allScenarios()) {
      const { batch, streamed } = both(runScenario(s, 1).history);
      expect(streamed, s.name).toEqual(batch);
    }
  });
});
