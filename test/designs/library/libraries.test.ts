/**
 * The lock libraries people ship, unmodified, in the simulator: each is safe on its
 * baseline and loses mutual exclusion to a GC pause; runs are byte-identical across
 * processes and differ across seeds; a user's own module runs by path; library code
 * that reaches for a socket stops the run with the call named, the seed and the replay.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../../scenarios/index.js";
import { packageRoot } from "../../../sim/paths.js";
import { firstExclusionDeviation, outcomeOf, sweep, sweepMessage } from "../../helpers/scenario-sweep.js";
import { main } from "../../../cli/main.js";
import { EXIT } from "../../../harness/exit-codes.js";
import { captureStdio } from "../../helpers/capture-stdio.js";

const io = captureStdio();
/** Seeds per library scenario in the suite (docs/libraries.md has the 200-seed figures). */
const SEEDS = 10;
const LIBRARIES = ["redlock-v4", "redlock-v5", "redis-semaphore", "redis-semaphore-redlock", "redis-lock", "redlock-universal", "node-redis-warlock"];

describe.each(LIBRARIES)("%s in the simulator", (lib) => {
  const base = `library-${lib}`;

  it(`baseline: safe on seeds 1..${SEEDS}, with grants to judge`, () => {
    const s = loadScenario(`${base}-baseline`);
    const r = sweep(s, SEEDS);
    expect(r.unexpected, sweepMessage(s, r)).toEqual([]);
    expect(r.exclusionViolatedSeeds).toEqual([]);
    const grants = outcomeOf(s, 1).history.filter((e) => e.type === "ok" && e.f === "acquire").length;
    expect(grants).toBeGreaterThan(5);
  });

  it(`GC pause: two holders on every seed 1..${SEEDS}`, () => {
    const s = loadScenario(`${base}-gc-pause`);
    const r = sweep(s, SEEDS);
    expect(r.unexpected, sweepMessage(s, r)).toEqual([]);
    expect(firstExclusionDeviation(s, r, SEEDS)).toBeUndefined();
  });
});

describe("determinism of real library code", () => {
  const lockstep = join(packageRoot(), "bin", "lockstep.js");
  const runIn = (dir: string, scenario: string, seed: number): string => {
    spawnSync(process.execPath, [lockstep, "run", scenario, "--seed", String(seed), "--out", dir], { encoding: "utf8" });
    return readFileSync(join(dir, "history.jsonl"), "utf8");
  };

  it("the same seed gives a byte-identical history in two processes; another seed differs", () => {
    const tmp = mkdtempSync(join(tmpdir(), "lockstep-lib-"));
    for (const s of ["library-redlock-v4-baseline"]) {
      const a = runIn(join(tmp, `${s}-a`), s, 7);
      const b = runIn(join(tmp, `${s}-b`), s, 7);
      const c = runIn(join(tmp, `${s}-c`), s, 8);
      expect(a.length).toBeGreaterThan(1000);
      expect(a === b, `${s}: seed 7 twice`).toBe(true);
      expect(a === c, `${s}: seeds 7 and 8`).toBe(false);
    }
  });

  it("node-redis path: two runs in one process give the same history", () => {
    const s = loadScenario("library-redis-lock-baseline");
    expect(JSON.stringify(outcomeOf(s, 5).history)).toBe(JSON.stringify(outcomeOf(s, 5).history));
  });
});

describe("bring your own lock, and escapes", () => {
  const scenarioWith = (adapter: string, name: string): string => {
    const dir = mkdtempSync(join(tmpdir(), "lockstep-byo-"));
    const s = JSON.parse(readFileSync(join(packageRoot(), "scenarios", "naive-gc-pause.json"), "utf8"));
    Object.assign(s, { name, design: "library", designOptions: { adapter } });
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(s));
    return file;
  };
  const fixture = (f: string): string => join(packageRoot(), "test", "fixtures", "library", f);

  it("a user's own module, by path, runs like a built-in: its plain-DEL lock loses to the GC pause", async () => {
    const code = await main(["run", scenarioWith(fixture("plain-del.cjs"), "byo-plain-del"), "--out", mkdtempSync(join(tmpdir(), "byo-"))]);
    expect(code).toBe(EXIT.safetyViolation);
    expect(io.out).toMatch(/FAIL mutual-exclusion/);
  });

  it("library code that opens a real socket stops the run: the call, the seed and the replay are printed, exit 7", async () => {
    const file = scenarioWith(fixture("escape-socket.cjs"), "byo-escape");
    const code = await main(["run", file, "--seed", "3", "--out", mkdtempSync(join(tmpdir(), "esc-"))]);
    expect(code).toBe(EXIT.stopped);
    expect(io.err).toMatch(/run stopped: library code on c1 tried require\("net"\)\.connect/);
    expect(io.err).toMatch(/seed: 3/);
    // The file's path, not its scenario name: a name only runs for a shipped scenario.
    expect(io.err).toContain(`replay: npx lockstep run ${file} --seed 3\n`);
    expect(io.err).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("an escape the library swallows, and a throw from a timer, stop the run too", async () => {
    expect(await main(["run", scenarioWith(fixture("escape-caught.cjs"), "byo-caught"), "--out", mkdtempSync(join(tmpdir(), "esc-"))])).toBe(EXIT.stopped);
    expect(io.err).toMatch(/tried fetch\(\)/);
    expect(await main(["run", scenarioWith(fixture("throws-in-timer.cjs"), "byo-throws"), "--out", mkdtempSync(join(tmpdir(), "esc-"))])).toBe(EXIT.stopped);
    expect(io.err).toMatch(/threw in a setTimeout callback: boom from a timer/);
  });

  it("an adapter path that does not exist is refused with the field named", async () => {
    expect(await main(["run", scenarioWith("./no/such/adapter.cjs", "byo-missing"), "--out", mkdtempSync(join(tmpdir(), "esc-"))])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/designOptions\.adapter: an adapter module that exists/);
  });
});
