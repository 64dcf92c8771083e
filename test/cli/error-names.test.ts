import { describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { EXIT } from "../../harness/exit-codes.js";
import { captureStdio } from "../helpers/capture-stdio.js";

const io = captureStdio();

/** Errors name the flag or argument they are about, with no placeholder such as "<arg>:". */
describe("error messages name the argument", () => {
  it("--lock with an unknown bare name names --lock and lists the built-in adapters", async () => {
    expect(await main(["run", "naive-baseline", "--lock", "nope"])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/^lockstep: --lock \(or the adapter after "@" in "naive-baseline@nope"\): a built-in adapter \(redlock-v4, .*redis-lock\) or a path/);
    expect(io.err).not.toMatch(/<arg>|scenarios\/naive-baseline\.json/);
  });

  it("a bad --seed is named without a placeholder", async () => {
    expect(await main(["run", "naive-baseline", "--seed", "x"])).toBe(EXIT.badInput);
    expect(io.err).toBe('lockstep: --seed: expected a non-negative integer, got "x"\n');
  });

  it("shrink without --seed blames the scenario's own seed, not a --seed never passed", async () => {
    expect(await main(["shrink", "naive-baseline"])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/^lockstep: scenario: expected a failing run: naive-baseline with seed 1 has no safety violation .*pass --seed N/);
    expect(io.err).not.toContain("--seed:");
  });
});
