import { describe, expect, it } from "vitest";
import { didYouMean, nearestNames } from "../../sim/suggest.js";
import { main } from "../../cli/main.js";
import { EXIT } from "../../harness/exit-codes.js";
import { scenarioFiles } from "../../scenarios/index.js";
import { captureStdio } from "../helpers/capture-stdio.js";

const io = captureStdio();

describe("did you mean", () => {
  const known = ["naive-gc-pause", "naive-baseline", "redlock-gc-pause", "redlock-baseline", "raft-zk-baseline"];
  it("names the nearest known names for a typo, a fragment or a misspelt word, nearest first", () => {
    expect(nearestNames("naive-gc-pase", known)).toEqual(["naive-gc-pause"]);
    expect(nearestNames("gc-pause", known)).toEqual(["naive-gc-pause", "redlock-gc-pause"]);
    expect(nearestNames("redlok", known)).toEqual(["redlock-baseline", "redlock-gc-pause"]);
    expect(nearestNames("zzzzzzzzzz", known)).toEqual([]);
  });
  it("for a stranger, still the three nearest rather than nothing", () => {
    expect(didYouMean("naive-gc-pase", known)).toBe("did you mean naive-gc-pause? ");
    expect(didYouMean("zzzzzzzzzz", known).match(/, /g)).toHaveLength(2);
    expect(didYouMean("x", [])).toBe("");
  });
  it("lockstep run with a misspelt scenario suggests it, and points at `lockstep list` instead of printing every name; exit 2", async () => {
    expect(await main(["run", "naive-gc-pase"])).toBe(EXIT.badInput);
    const total = scenarioFiles().size;
    expect(io.err).toBe(`lockstep: scenario: unknown scenario "naive-gc-pase"; did you mean naive-gc-pause? \`lockstep list\` names all ${total}\n`);
  });
  it("lockstep run nope: one line with three suggestions, not the whole registry", async () => {
    expect(await main(["run", "nope"])).toBe(EXIT.badInput);
    const line = io.err.trimEnd();
    expect(line.split("\n")).toHaveLength(1);
    const named = /did you mean (.*)\? /.exec(line)![1]!.split(", ");
    expect(named).toHaveLength(3);
    for (const n of named) expect(scenarioFiles().has(n)).toBe(true);
    // Not one name more than the three suggested.
    const others = [...scenarioFiles().keys()].filter((n) => !named.includes(n));
    for (const n of others) expect(line).not.toContain(` ${n},`);
    expect(line.length).toBeLessThan(200);
  });
});
