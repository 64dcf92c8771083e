import { describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { EXIT } from "../../harness/exit-codes.js";
import { captureStdio } from "../helpers/capture-stdio.js";

const io = captureStdio();

/** Errors name the flag or argument they are about, with no placeholder such as "<arg>:". */
describe("error messages name the argument", () => {
  it("--lock with an unknown bare name names --lock and lists the built-in adapters", async () => {
    expect(await main(["run", "naive-baseline", "--lock", "nope"])).toBe(EXIT.badInput);
    expect(io.err).toMatch(
      /^lockstep: --lock \(or the adapter after "@" in "naive-baseline@nope"\): a built-in adapter \(redlock-v4, .*redis-lock\) or a path/,
    );
    expect(io.err).not.toMatch(/<arg>|scenarios\/naive-baseline\.json/);
  });

  it("--lock naming a folder asks for the module file in it, before any run starts", async () => {
    expect(await main(["run", "naive-baseline", "--lock", "examples/my-lock"])).toBe(EXIT.badInput);
    expect(io.err).toMatch(
      /^lockstep: --lock .*: an adapter module file, not a folder \(.*examples\/my-lock: name the module in it, e\.g\. examples\/my-lock\/adapter\.ts\)\n$/,
    );
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

describe("check on lockstep's own history", () => {
  it("judges with the lease-lock model run used, from the acquires' ttlMs", async () => {
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(tmpdir(), "own-hist-"));
    await main(["run", "naive-gc-pause", "--out", dir]);
    const runLine = io.out.split("\n").find((l) => l.includes("linearizability"))!;
    io.out = "";
    await main(["check", join(dir, "history.jsonl")]);
    expect(io.out.split("\n")[0]).toMatch(/model lease-lock$/);
    expect(io.out.split("\n").find((l) => l.includes("linearizability"))).toBe(runLine);
  });

  it("a history whose acquires carry no single ttlMs keeps the mutex default", async () => {
    const { acquireTtlMs } = await import("../../cli/commands/check.js");
    const inv = (process: string, ttlMs?: number) =>
      ({ index: 0, timeUs: 0, process, type: "invoke", f: "acquire", lock: "L", value: ttlMs === undefined ? null : { ttlMs } }) as never;
    expect(acquireTtlMs([inv("c1", 100), inv("c2", 100)])).toBe(100);
    expect(acquireTtlMs([inv("c1", 100), inv("c2", 200)])).toBeUndefined();
    expect(acquireTtlMs([inv("c1", 100), inv("c2")])).toBeUndefined();
    expect(acquireTtlMs([])).toBeUndefined();
  });
});
