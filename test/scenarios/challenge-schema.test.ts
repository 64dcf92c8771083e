import { describe, expect, it } from "vitest";
import { parseScenario } from "../../scenarios/schema.js";
import { expectScenarioError, MINIMAL_SCENARIO, scenarioErrorOf } from "../helpers/input-error.js";
import { scenarioToJson } from "../../harness/explore/scenario-file.js";
import { loadScenario } from "../../scenarios/index.js";

const withChallenge = (challenge: unknown) => ({ ...MINIMAL_SCENARIO, challenge });

describe("the scenario's challenge field", () => {
  it("is absent by default (the default rule applies) and keeps each kind, with waitedMsMin for waits", () => {
    expect("challenge" in parseScenario(MINIMAL_SCENARIO, "g.json")).toBe(false);
    for (const kind of ["overlapping-belief", "expiry-handover", "waiter-served", "granted-during-release", "waiter-waited"]) {
      expect(parseScenario(withChallenge({ kind }), "g.json").challenge).toEqual({ kind });
    }
    expect(parseScenario(withChallenge({ kind: "waiter-waited", waitedMsMin: 500 }), "g.json").challenge).toEqual({ kind: "waiter-waited", waitedMsMin: 500 });
  });

  it("survives being written back as a file (compare cells, counterexamples), so a cell is judged by its scenario's rule", () => {
    const s = loadScenario("redlock-baseline");
    expect(s.challenge).toEqual({ kind: "waiter-served" });
    expect(parseScenario(JSON.parse(JSON.stringify(scenarioToJson(s))), "again.json").challenge).toEqual({ kind: "waiter-served" });
    expect("challenge" in scenarioToJson(loadScenario("naive-gc-pause"))).toBe(false);
  });

  it.each([
    [withChallenge("overlap"), "challenge", /expected an object/],
    [
      withChallenge({}),
      "challenge.kind",
      /expected one of "overlapping-belief", "expiry-handover", "waiter-served", "granted-during-release", "waiter-waited", "client-fault-contended", "server-fault-during-hold", "derived", got nothing/,
    ],
    [withChallenge({ kind: "two-holders" }), "challenge.kind", /got "two-holders"/],
    [withChallenge({ kind: "waiter-waited", waitedMsMin: -1 }), "challenge.waitedMsMin", /expected a number >= 0, got -1/],
    [withChallenge({ kind: "waiter-served", waitedMsMin: 5 }), "challenge.waitedMsMin", /unknown field; expected one of: kind$/],
  ])("refuses %j at %s with one line", (raw, field, message) => {
    expectScenarioError(scenarioErrorOf(raw), field, message);
  });
});
