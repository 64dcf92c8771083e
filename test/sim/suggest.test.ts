import { describe, expect, it } from "vitest";
import { didYouMean, nearestNames } from "../../sim/suggest.js";
import { main } from "../../cli/main.js";
import { EXIT } from "../../cli/exit-codes.js";
import { captureStdio } from "../helpers/capture-stdio.js";

const io = captureStdio();

describe("did you mean", () => {
  const known = ["naive-gc-pause", "naive-baseline", "redlock-gc-pause", "raft-zk-baseline"];
  it("names the nearest known names for a typo or a fragment, and nothing for a stranger", () => {
    expect(nearestNames("naive-gc-pase", known)).toEqual(["naive-gc-pause"]);
    expect(nearestNames("gc-pause", known)).toEqual(["naive-gc-pause", "redlock-gc-pause"]);
    expect(didYouMean("zzzzzzzzzz", known)).toBe("");
  });
  it("lockstep run with a misspelt scenario suggests it before the list, exit 2", async () => {
    expect(await main(["run", "naive-gc-pase"])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/unknown scenario; did you mean naive-gc-pause\? expected one of: /);
  });
});
