import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { mkdtempSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadScenario, loadScenarioFile } from "../scenarios/index.js";
import { parseScenario, type Scenario } from "../scenarios/schema.js";
import { faultScheduleArb, type FaultSpace } from "../harness/explore/arbitraries.js";
import { scenarioToJson } from "../harness/explore/scenario-file.js";
import { shrinkScenario } from "../harness/explore/shrink.js";
import { exploreCommand } from "../cli/commands/explore.js";
import { violation } from "../harness/explore/runs.js";
import { adapterSlug } from "../harness/adapter-slug.js";
import { shrinkCommand } from "../cli/commands/shrink.js";
import { runSeed } from "../harness/sweep/run-seed.js";
import { EXIT } from "../harness/exit-codes.js";
import { InputError } from "../sim/errors.js";

const tmp = () => mkdtempSync(join(tmpdir(), "lockstep-explore-"));
const defaults = { runs: "200", shrinkRuns: "400", seed: "1", faultsMax: "6", durationMs: "6000" };

/** The counterexample file must load through the validator and fail as claimed, with seed and replay printed. */
function checkCounterexample(r: ReturnType<typeof exploreCommand>, failing: string): Scenario {
  expect(r.code).toBe(EXIT.safetyViolation);
  const s = loadScenarioFile(r.file!);
  const run = runSeed(s, s.seed);
  expect(run.checkers[failing]).toBe(false);
  expect(run.outcome).toBe(s.expect);
  expect(r.text).toContain(`seed: ${s.seed}`);
  expect(r.text).toContain(`replay: npx lockstep run ${r.file} --seed ${s.seed}`);
  const results = JSON.parse(readFileSync(join(r.file!, "..", "run", "results.json"), "utf8"));
  expect(results.seed).toBe(s.seed);
  expect(results.verdicts.outcome).toBe(run.outcome);
  return s;
}

describe("fault schedule arbitraries", () => {
  const space: FaultSpace = { servers: ["zk-1", "zk-2", "zk-3"], clients: ["c1", "c2"], durationMs: 5000, ttlMs: 1000, serverOnly: false, stepsMax: 6 };

  it("draw schedules that are valid scenario files, in time order, within the run", () => {
    const base = loadScenario("naive-baseline");
    fc.assert(
      fc.property(faultScheduleArb(space), (faults) => {
        expect(faults.length).toBeLessThanOrEqual(6);
        const s = parseScenario(JSON.parse(JSON.stringify(scenarioToJson({ ...base, faults }))), "drawn.json");
        expect(s.faults).toHaveLength(faults.length);
        for (let i = 0; i < faults.length; i++) {
          expect(faults[i]!.atMs).toBeGreaterThanOrEqual(i > 0 ? faults[i - 1]!.atMs! : 0);
          expect(faults[i]!.atMs).toBeLessThan(5000);
        }
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it("server-side only: every target, partition group and lossy link is a server", () => {
    const servers = new Set(space.servers);
    let clientSeen = false;
    fc.assert(
      fc.property(faultScheduleArb({ ...space, serverOnly: true }), faultScheduleArb(space), (only, mixed) => {
        for (const f of only) {
          const ids = [f.target, ...(f.groups ?? []).flat(), ...(f.links ?? []).flat()].filter((x): x is string => x !== undefined);
          for (const id of ids) expect(servers.has(id)).toBe(true);
        }
        // The negative space: without the restriction clients do get faults.
        if (mixed.some((f) => f.target?.startsWith("c") || f.groups?.flat().some((x) => x.startsWith("c")))) clientSeen = true;
      }),
      { seed: 11, numRuns: 200 },
    );
    expect(clientSeen).toBe(true);
  });
});

describe("lockstep explore", () => {
  it("redis-setnx: finds a double holder within the default budget and shrinks it to a few faults; same seed, same counterexample", () => {
    const opts = { ...defaults, design: "redis-setnx", checkers: "mutual-exclusion" };
    const r = exploreCommand({ ...opts, out: tmp() });
    const s = checkCounterexample(r, "mutual-exclusion");
    expect(s.faults.length).toBeLessThanOrEqual(3);
    expect(r.result.runs).toBeLessThanOrEqual(200);
    const again = exploreCommand({ ...opts, out: tmp() });
    expect(scenarioToJson(loadScenarioFile(again.file!))).toEqual(scenarioToJson(s));
  });

  it("redlock: finds a double holder within the default budget and shrinks it to a few faults", () => {
    const r = exploreCommand({ ...defaults, design: "redlock", checkers: "mutual-exclusion", out: tmp() });
    const s = checkCounterexample(r, "mutual-exclusion");
    expect(s.faults.length).toBeLessThanOrEqual(3);
  });

  it("raft-zk with fencing on, server-side faults: no violation in 40 runs; the same search finds the follower-expiry bug", () => {
    const safe = exploreCommand({ ...defaults, runs: "40", design: "raft-zk", serverFaultsOnly: true, fencing: true, out: tmp() });
    expect(safe.result.found).toBe(false);
    expect(safe.result.runs).toBe(40);
    expect(safe.code).toBe(EXIT.ok);
    expect(safe.text).toMatch(/no safety violation in 40 runs/);

    // The positive control: the same fault space and budget against the design with a
    // known server-side bug switched on. If this stops finding it, the search is blind.
    const raw = JSON.parse(readFileSync(join("scenarios", "raft-zk", "raft-zk-baseline.json"), "utf8"));
    raw.name = "raft-zk-bug-base";
    raw.designOptions = { ...raw.designOptions, bugs: { followerSessionExpiry: true } };
    const dir = tmp();
    writeFileSync(join(dir, "base.json"), JSON.stringify(raw));
    const buggy = exploreCommand({
      ...defaults,
      runs: "40",
      shrinkRuns: "30",
      design: "raft-zk",
      base: join(dir, "base.json"),
      serverFaultsOnly: true,
      fencing: true,
      out: dir,
    });
    expect(buggy.result.found).toBe(true);
    const s = loadScenarioFile(buggy.file!);
    expect(runSeed(s, s.seed).safety).toBe(false);
    for (const f of s.faults) expect(f.target === undefined || f.target.startsWith("zk-")).toBe(true);
  });

  it("--differential: finds a plain-DEL release bug the reference recipe does not share, and no false alarm on a correct lock", () => {
    const diff = { ...defaults, runs: "100", shrinkRuns: "60", design: "redis-setnx", differential: true };
    const buggy = exploreCommand({ ...diff, seed: "2", lock: "test/fixtures/adapters/bugs/plain-del.cjs", out: tmp() });
    expect(buggy.code).toBe(EXIT.safetyViolation);
    expect(buggy.text).toMatch(
      /the same schedule: unsafe (\d+)\/(\d+) \[\d+%, \d+%\] here, (\d+)\/\2 \[\d+%, \d+%\] on setnx-reference \(reference\) \(seeds \d+\.\.\d+\); the 95% intervals do not meet/,
    );
    const s = loadScenarioFile(buggy.file!);
    expect(runSeed(s, s.seed).safety).toBe(false);
    const ref = JSON.parse(readFileSync(join(buggy.file!, "..", "reference", "results.json"), "utf8"));
    expect(ref.verdicts.outcome).toBe("safe");

    // Server restarts without persistence beat my-lock and the reference alike: the
    // plain search reports them, the differential does not blame the user's code.
    const correct = { ...diff, lock: "examples/my-lock/adapter.ts", serverFaultsOnly: true, runs: "40" };
    expect(exploreCommand({ ...correct, differential: false, out: tmp() }).result.found).toBe(true);
    const clean = exploreCommand({ ...correct, out: tmp() });
    expect(clean.result.found).toBe(false);
    expect(clean.text).toMatch(/no schedule unsafe on examples\/my-lock\/adapter.ts more often than on setnx-reference/);
    // It says what it judged: the schedules unsafe here, with both rates.
    expect(clean.text).toMatch(
      /\n\d+ drawn schedule\(s\) were unsafe on their own seed; judged on paired seeds \(\d+ in all\): unsafe \d+\/\d+ here, \d+\/\d+ on the reference; no schedule's 95% intervals apart\n/,
    );
    expect(() => exploreCommand({ ...defaults, design: "redis-setnx", differential: true })).toThrow(/--differential.*--lock/);
    // Each schedule unsafe here is judged on up to 20 paired seeds: minutes on a loaded machine.
  }, 900_000);

  it("tells its progress listener each run, searching then shrinking", () => {
    const calls: string[] = [];
    const r = exploreCommand({ ...defaults, design: "redis-setnx", checkers: "mutual-exclusion", shrinkRuns: "20", out: tmp() }, (phase, n) =>
      calls.push(`${phase} ${n}`),
    );
    expect(r.result.found).toBe(true);
    expect(calls.slice(0, r.result.runs)).toEqual(Array.from({ length: r.result.runs }, (_, i) => `search ${i + 1}`));
    expect(calls.slice(r.result.runs)[0]).toBe("shrink 1");
  });

  it("names a counterexample after the adapter's folder when the file is adapter.ts", () => {
    expect(adapterSlug("examples/my-lock/adapter.ts")).toBe("my-lock-adapter");
    expect(adapterSlug("./bugs/Plain_DEL.cjs")).toBe("plain-del");
  });

  it("rejects an unknown design or checker with the list", () => {
    expect(() => exploreCommand({ ...defaults, design: "nope" })).toThrow(InputError);
    expect(() => exploreCommand({ ...defaults, design: "redis-setnx", checkers: "nope" })).toThrow(/unknown checker "nope"/);
  });
});

describe("lockstep shrink", () => {
  it("drops the faults that do not matter and shortens the one that does", () => {
    const base = loadScenario("naive-gc-pause");
    const noisy: Scenario = {
      ...base,
      faults: [
        { kind: "clock-drift", atMs: 100, delayMs: 0, target: "redis-1", driftPpm: 100, durationMs: 1000 },
        ...base.faults,
        { kind: "delay", atMs: 19_000, delayMs: 0, links: [["c2", "redis-1"]], extraMs: 3, durationMs: 500 },
        { kind: "pause", atMs: 19_500, delayMs: 0, target: "c2", durationMs: 100 },
      ],
    };
    const violates = violation();
    expect(violates(noisy, 1)).toBe(true);
    const r = shrinkScenario({ scenario: noisy, seed: 1, runsMax: 300, violates });
    expect(r.minimal).toBe(true);
    expect(r.scenario.faults).toHaveLength(1);
    const pause = r.scenario.faults[0]!;
    expect(pause.kind).toBe("pause");
    expect(pause.on).toEqual(base.faults[0]!.on);
    // Shorter than the original 15 s but still longer than the 10 s lease: the pause must outlive it.
    expect(pause.durationMs!).toBeLessThan(15_000);
    expect(pause.durationMs!).toBeGreaterThan(base.workload.ttlMs - 1000);
    expect(violates(r.scenario, 1)).toBe(true);
  });

  it("writes the shrunk scenario and its report, naming seed and replay; refuses a run that does not fail", () => {
    const dir = tmp();
    const r = shrinkCommand("naive-gc-pause", { seed: "3", runs: "100", out: dir });
    expect(r.code).toBe(EXIT.safetyViolation);
    const s = loadScenarioFile(r.file);
    expect(runSeed(s, 3).safety).toBe(false);
    expect(r.text).toContain("seed: 3");
    expect(r.text).toContain(`replay: npx lockstep run ${r.file} --seed 3`);
    expect(() => shrinkCommand("naive-baseline", { seed: "3", runs: "10", out: tmp() })).toThrow(/no safety violation/);
  });
});
